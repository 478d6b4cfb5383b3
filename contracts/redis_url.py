"""The Sentinel form of a Redis URL, shared by the worker, the CLI and both clients.

    redis+sentinel://[USER:PASSWORD@]HOST[:PORT][,HOST[:PORT]...]/SERVICE[/DB][?OPTIONS]
    rediss+sentinel://...   the same over TLS, to the sentinels and to the data nodes

Each HOST:PORT is a sentinel (port 26379 when left out; an IPv6 address in brackets),
SERVICE the name the sentinels monitor (`sentinel monitor SERVICE ...`), DB the database
on the primary (0 when left out). USER and PASSWORD are the data nodes' credentials,
the ACL user the deployment gives accord, as in a plain redis:// URL. The sentinels
keep credentials of their own (their `requirepass` or ACL is not the data nodes'), so
they are separate options: `sentinel_username=` and `sentinel_password=`; without them
the sentinels are asked without authenticating. The TLS options of a rediss:// URL
(`ssl_cert_reqs=`, `ssl_ca_certs=`, ...) apply to both.

One pure function turns the text into a `SentinelUrl` or a ValueError of one line; the
TypeScript client parses the same form (clients/typescript, `sentinelOptions`), and both
are checked against contracts/vectors/sentinel_url.json.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote

SENTINEL_SCHEMES = ("redis+sentinel", "rediss+sentinel")
DEFAULT_SENTINEL_PORT = 26379
# Options beside the path: the sentinels' own credentials, and TLS for rediss+sentinel.
SENTINEL_OPTIONS = ("sentinel_username", "sentinel_password")
TLS_OPTIONS = ("ssl_cert_reqs", "ssl_ca_certs", "ssl_certfile", "ssl_keyfile", "ssl_check_hostname")
FORM = "redis+sentinel://[user:password@]host[:port][,host[:port]...]/service[/db]"


@dataclass(frozen=True, slots=True)
class SentinelUrl:
    """Where the sentinels are, which service to ask them for, and how to log in."""

    sentinels: tuple[tuple[str, int], ...]
    service: str
    db: int = 0
    username: str | None = None
    password: str | None = None
    sentinel_username: str | None = None
    sentinel_password: str | None = None
    tls: bool = False
    # The TLS options as written (name, value), for the connections to both kinds of node.
    tls_options: tuple[tuple[str, str], ...] = ()


def is_sentinel_url(url: str) -> bool:
    return url.partition("://")[0].lower() in SENTINEL_SCHEMES


def parse_sentinel_url(url: str) -> SentinelUrl:
    """`url` parsed, or ValueError saying in one line what is wrong (never the password)."""
    scheme, separator, rest = url.partition("://")
    if not separator or scheme.lower() not in SENTINEL_SCHEMES:
        raise ValueError(f"is not a Sentinel URL ({FORM})")
    tls = scheme.lower() == "rediss+sentinel"
    # Split by hand: urlsplit refuses a netloc of several hosts with IPv6 brackets.
    rest, _, query = rest.partition("?")
    netloc, slash, path = rest.partition("/")
    userinfo, at, hosts = netloc.rpartition("@")
    username, password = _credentials(userinfo) if at else (None, None)
    sentinels = tuple(_sentinel(one) for one in hosts.split(","))
    service, db = _path(slash + path.partition("#")[0])
    options = _options(query.partition("#")[0], tls=tls)
    return SentinelUrl(
        sentinels=sentinels,
        service=service,
        db=db,
        username=username,
        password=password,
        sentinel_username=options.pop("sentinel_username", None),
        sentinel_password=options.pop("sentinel_password", None),
        tls=tls,
        tls_options=tuple(options.items()),
    )


def _credentials(userinfo: str) -> tuple[str | None, str | None]:
    user, colon, password = userinfo.partition(":")
    return (unquote(user) or None), (unquote(password) if colon else None)


def _sentinel(text: str) -> tuple[str, int]:
    """One `host[:port]` of the list (`[v6]:port` for an IPv6 address)."""
    if text.startswith("["):
        host, bracket, tail = text[1:].partition("]")
        if not bracket or (tail and not tail.startswith(":")):
            raise ValueError(f"has a bad sentinel address {text!r} ({FORM})")
        port_text = tail[1:]
    else:
        host, _, port_text = text.partition(":")
    if not host:
        raise ValueError(f"names no sentinel host ({FORM})")
    if not port_text:
        return host, DEFAULT_SENTINEL_PORT
    if not port_text.isascii() or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ValueError(f"has a bad sentinel port {port_text!r} (1-65535)")
    return host, int(port_text)


def _path(path: str) -> tuple[str, int]:
    """`/service[/db]`: the service name the sentinels monitor and the database."""
    service, _, db_text = path.removeprefix("/").partition("/")
    service = unquote(service)
    if not service:
        raise ValueError(f"names no service: the path is the name the sentinels monitor ({FORM})")
    db_text = db_text.removesuffix("/")
    if not db_text:
        return service, 0
    if not db_text.isascii() or not db_text.isdigit():
        raise ValueError(f"has a bad database {db_text!r} after the service (a number)")
    return service, int(db_text)


def _options(query: str, *, tls: bool) -> dict[str, str]:
    known = SENTINEL_OPTIONS + (TLS_OPTIONS if tls else ())
    options: dict[str, str] = {}
    for name, value in parse_qsl(query, keep_blank_values=True):
        if name not in known:
            raise ValueError(
                f"has an option {name!r} a Sentinel URL does not take ({', '.join(known)})"
            )
        options[name] = value
    return options
