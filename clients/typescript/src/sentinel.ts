// The redis+sentinel:// URL form of contracts/redis_url.py, as ioredis options:
//
//   redis+sentinel://[USER:PASSWORD@]HOST[:PORT][,HOST[:PORT]...]/SERVICE[/DB][?OPTIONS]
//   rediss+sentinel://...   the same over TLS, to the sentinels and to the data nodes
//
// `new Redis(sentinelOptions(url))` is ioredis's own Sentinel support: it asks the
// sentinels for the service's primary and reconnects to the promoted one after a
// failover. USER and PASSWORD are the data nodes' credentials; the sentinels' own are
// the options `sentinel_username=` and `sentinel_password=`. The Python parser and this
// one are checked against the same vectors (contracts/vectors/sentinel_url.json).
import { readFileSync } from "node:fs";
import type { ConnectionOptions } from "node:tls";
import type { RedisOptions } from "ioredis";
import { InvalidInputError } from "./index.js";

const SCHEMES = ["redis+sentinel", "rediss+sentinel"];
const DEFAULT_SENTINEL_PORT = 26379;
const SENTINEL_OPTIONS = ["sentinel_username", "sentinel_password"];
const TLS_OPTIONS = ["ssl_cert_reqs", "ssl_ca_certs", "ssl_certfile", "ssl_keyfile", "ssl_check_hostname"];
const FORM = "redis+sentinel://[user:password@]host[:port][,host[:port]...]/service[/db]";

/** Whether `url` is of the Sentinel form (by its scheme). */
export function isSentinelUrl(url: string): boolean {
  const index = url.indexOf("://");
  return index > 0 && SCHEMES.includes(url.slice(0, index).toLowerCase());
}

function refused(detail: string): never {
  throw new InvalidInputError("url", detail);
}

function sentinelAddress(text: string): { host: string; port: number } {
  let host: string;
  let portText: string;
  if (text.startsWith("[")) {
    const close = text.indexOf("]");
    const tail = close < 0 ? "" : text.slice(close + 1);
    if (close < 0 || (tail !== "" && !tail.startsWith(":"))) {
      refused(`has a bad sentinel address ${JSON.stringify(text)} (${FORM})`);
    }
    host = text.slice(1, close);
    portText = tail.slice(1);
  } else {
    const colon = text.indexOf(":");
    host = colon < 0 ? text : text.slice(0, colon);
    portText = colon < 0 ? "" : text.slice(colon + 1);
  }
  if (host === "") refused(`names no sentinel host (${FORM})`);
  if (portText === "") return { host, port: DEFAULT_SENTINEL_PORT };
  const port = /^[0-9]+$/.test(portText) ? Number(portText) : 0;
  if (!(port > 0 && port < 65536)) refused(`has a bad sentinel port ${JSON.stringify(portText)} (1-65535)`);
  return { host, port };
}

/** Reads a certificate or key file named by a TLS option. */
export type ReadFile = (path: string) => Buffer;

function tlsOptions(options: Map<string, string>, readFile: ReadFile): ConnectionOptions {
  const tls: ConnectionOptions = {};
  const ca = options.get("ssl_ca_certs");
  if (ca) tls.ca = readFile(ca);
  const cert = options.get("ssl_certfile");
  if (cert) tls.cert = readFile(cert);
  const key = options.get("ssl_keyfile");
  if (key) tls.key = readFile(key);
  const off = (value: string | undefined) => ["false", "0", "no", "off", "none", "cert_none"].includes((value ?? "").trim().toLowerCase());
  if (off(options.get("ssl_cert_reqs"))) tls.rejectUnauthorized = false;
  if (options.has("ssl_check_hostname") && off(options.get("ssl_check_hostname"))) {
    tls.checkServerIdentity = () => undefined;
  }
  return tls;
}

/** ioredis options for a redis+sentinel:// URL; `InvalidInputError` (field `url`) saying
 * in one line what is wrong with another form, never showing the password. The files a
 * rediss+sentinel:// URL names (`ssl_ca_certs=`, ...) are read with `readFile`. */
export function sentinelOptions(url: string, readFile: ReadFile = readFileSync): RedisOptions {
  const index = url.indexOf("://");
  const scheme = index > 0 ? url.slice(0, index).toLowerCase() : "";
  if (!SCHEMES.includes(scheme)) refused(`is not a Sentinel URL (${FORM})`);
  const tls = scheme === "rediss+sentinel";
  const withoutFragment = url.slice(index + 3).split("#")[0] ?? "";
  const question = withoutFragment.indexOf("?");
  const rest = question < 0 ? withoutFragment : withoutFragment.slice(0, question);
  const query = question < 0 ? "" : withoutFragment.slice(question + 1);
  const slash = rest.indexOf("/");
  const netloc = slash < 0 ? rest : rest.slice(0, slash);
  const path = slash < 0 ? "" : rest.slice(slash + 1);
  const at = netloc.lastIndexOf("@");
  const userinfo = at < 0 ? null : netloc.slice(0, at);
  const hosts = at < 0 ? netloc : netloc.slice(at + 1);
  const sentinels = hosts.split(",").map(sentinelAddress);
  const pathSlash = path.indexOf("/");
  const service = decodeURIComponent(pathSlash < 0 ? path : path.slice(0, pathSlash));
  if (service === "") refused(`names no service: the path is the name the sentinels monitor (${FORM})`);
  let dbText = pathSlash < 0 ? "" : path.slice(pathSlash + 1);
  if (dbText.endsWith("/")) dbText = dbText.slice(0, -1);
  if (dbText !== "" && !/^[0-9]+$/.test(dbText)) {
    refused(`has a bad database ${JSON.stringify(dbText)} after the service (a number)`);
  }
  const known = [...SENTINEL_OPTIONS, ...(tls ? TLS_OPTIONS : [])];
  const options = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(query)) {
    if (!known.includes(name)) refused(`has an option ${JSON.stringify(name)} a Sentinel URL does not take (${known.join(", ")})`);
    options.set(name, value);
  }
  const result: RedisOptions = {
    sentinels,
    name: service,
    db: dbText === "" ? 0 : Number(dbText),
    // ioredis asks the sentinels only when it connects, and keeps its connection: a primary
    // paused through a failover and resumed is still a primary until Sentinel demotes it,
    // seconds later, and went on answering and taking appends it then dropped. Subscribed
    // to the sentinels' +switch-master, the client reconnects to the promoted replica at
    // once (commands in flight are sent again there).
    failoverDetector: true,
    // A demoted primary's READONLY: reconnect through the sentinels and send the command again.
    reconnectOnError: (error) => (error.message.startsWith("READONLY") ? 2 : false),
  };
  if (userinfo !== null) {
    const colon = userinfo.indexOf(":");
    const username = decodeURIComponent(colon < 0 ? userinfo : userinfo.slice(0, colon));
    if (username !== "") result.username = username;
    if (colon >= 0) result.password = decodeURIComponent(userinfo.slice(colon + 1));
  }
  const sentinelUsername = options.get("sentinel_username");
  if (sentinelUsername !== undefined) result.sentinelUsername = sentinelUsername;
  const sentinelPassword = options.get("sentinel_password");
  if (sentinelPassword !== undefined) result.sentinelPassword = sentinelPassword;
  if (tls) {
    result.tls = tlsOptions(options, readFile);
    result.sentinelTLS = tlsOptions(options, readFile);
    result.enableTLSForSentinelMode = true;
  }
  return result;
}
