// DNS-rebinding guard. A page on evil.example can make its own name resolve to 127.0.0.1; the
// browser then sends `Host: evil.example:<port>` with a matching `Origin`, so an Origin check alone
// passes. Refusing every Host that is not a name this service is meant to be reached by stops it.
import type { MiddlewareHandler } from "hono";
import { errorBody } from "./errors.js";
import { requestHeader } from "./node-headers.js";

/** Names every local service answers to. */
export const LOOPBACK_HOSTS: readonly string[] = ["localhost", "127.0.0.1", "::1"];

/**
 * The default list: loopback names plus the bind host, unless it binds every interface
 * (`0.0.0.0`, `::`), which names no host a browser would use.
 */
export function defaultAllowedHosts(bindHost?: string): string[] {
  const hosts = new Set(LOOPBACK_HOSTS);
  const bind = bindHost
    ?.trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  if (bind && bind !== "0.0.0.0" && bind !== "::") hosts.add(bind);
  return [...hosts];
}

/** The host name of a `Host` header value (`name:port`, `[v6]:port`), lower-cased, without port. */
export function hostName(header: string): string {
  const value = header.trim().toLowerCase();
  if (value.startsWith("[")) {
    const end = value.indexOf("]");
    return end === -1 ? value.slice(1) : value.slice(1, end);
  }
  const colon = value.indexOf(":");
  return (colon === -1 ? value : value.slice(0, colon)).replace(/\.$/, "");
}

/**
 * True when `name` is allowed: listed exactly, matched by a `.example.com` entry (that domain and
 * its subdomains), or the list holds `*` (the check is off).
 */
export function hostAllowed(name: string, allowed: readonly string[]): boolean {
  const host = name.toLowerCase();
  for (const entry of allowed) {
    const rule = entry.toLowerCase();
    if (rule === "*" || rule === host) return true;
    if (rule.startsWith(".") && (host === rule.slice(1) || host.endsWith(rule))) return true;
  }
  return false;
}

/**
 * 403 `host_not_allowed` for a request whose `Host` is not in `allowed`. A request without a
 * Host header (HTTP/1.0 tools) passes: browsers always send one.
 */
export function allowedHostsGuard(
  allowed: readonly string[],
  onRefused?: (host: string) => void,
): MiddlewareHandler {
  const list = [...allowed];
  return async (c, next) => {
    const header = requestHeader(c, "host");
    if (header === undefined || hostAllowed(hostName(header), list)) return next();
    onRefused?.(header);
    return c.json(
      errorBody(
        "host_not_allowed",
        `Host "${hostName(header)}" is not allowed; add it to allowedHosts in agentsvc.config to serve it`,
      ),
      403,
    );
  };
}
