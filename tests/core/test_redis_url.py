"""The redis+sentinel:// URL form (contracts/redis_url.py): every published vector of
contracts/vectors/sentinel_url.json parses as it says, or fails with its phrase in one
line that never shows the password. The TypeScript client is checked against the same
file (clients/typescript/test/sentinel.test.ts)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contracts.redis_url import (
    DEFAULT_SENTINEL_PORT,
    SentinelUrl,
    is_sentinel_url,
    parse_sentinel_url,
)
from tests.support.paths import ROOT

VECTORS: dict[str, Any] = json.loads(
    (ROOT / "contracts" / "vectors" / "sentinel_url.json").read_text("utf-8")
)


def _meaning(parsed: SentinelUrl) -> dict[str, Any]:
    return {
        "sentinels": [list(one) for one in parsed.sentinels],
        "service": parsed.service,
        "db": parsed.db,
        "username": parsed.username,
        "password": parsed.password,
        "sentinel_username": parsed.sentinel_username,
        "sentinel_password": parsed.sentinel_password,
        "tls": parsed.tls,
    }


@pytest.mark.parametrize("row", VECTORS["good"], ids=lambda row: row["url"][:40])
def test_each_good_vector_means_what_the_file_says(row: dict[str, Any]) -> None:
    """Sentinels in order with 26379 by default, the service, the database, the data
    nodes' and the sentinels' credentials apart, TLS by the scheme."""
    assert is_sentinel_url(row["url"])
    expected = {k: v for k, v in row.items() if k != "url"}
    assert _meaning(parse_sentinel_url(row["url"])) == expected


@pytest.mark.parametrize("row", VECTORS["bad"], ids=lambda row: row["url"][:40])
def test_each_bad_vector_is_one_line_saying_what_is_wrong(row: dict[str, Any]) -> None:
    """A bad form is a ValueError of one line containing the vector's phrase."""
    with pytest.raises(ValueError, match=row["error"]) as refused:
        parse_sentinel_url(row["url"])
    assert "\n" not in str(refused.value)


def test_tls_options_are_kept_for_rediss_only() -> None:
    """rediss+sentinel:// keeps its TLS options (for sentinels and primary alike)."""
    parsed = parse_sentinel_url("rediss+sentinel://h/s?ssl_ca_certs=/ca.pem&ssl_cert_reqs=required")
    assert parsed.tls_options == (("ssl_ca_certs", "/ca.pem"), ("ssl_cert_reqs", "required"))
    assert parsed.sentinels == (("h", DEFAULT_SENTINEL_PORT),)


# Letters no error message is made of, so any match is the password leaking.
@given(password=st.text("QZXJ!~$%", min_size=6, max_size=16))
def test_an_error_never_shows_the_password(password: str) -> None:
    """Whatever the password, a refused URL's message does not contain it: the errors
    name the part that is wrong, never the credentials."""
    secret = quote(password, safe="")
    for url in (
        f"redis+sentinel://u:{secret}@h:1",
        f"redis+sentinel://u:{secret}@h:x/svc",
        f"redis+sentinel://u:{secret}@h/svc?sentinel_password={secret}&bad=1",
    ):
        with pytest.raises(ValueError, match=r"sentinel|service|option") as refused:
            parse_sentinel_url(url)
        assert secret not in str(refused.value)
        assert password not in str(refused.value)
