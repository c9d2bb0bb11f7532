// Whether the receiving mail server vouches for the From address (RFC 8601 Authentication-Results).
// A decision by mail is applied only when a server the operator trusts (by its authserv-id) reports
// DMARC pass for the From domain, or a DKIM pass whose signing domain is aligned with it. Anyone can
// write any From; only the receiving server's verdict says who sent the mail.

/** One `method=result` of an Authentication-Results header, with its `ptype.property=value` pairs. */
export interface AuthResult {
  method: string;
  result: string;
  props: Record<string, string>;
}

export interface AuthResultsHeader {
  authservId: string;
  results: AuthResult[];
}

/** Replaces RFC 5322 comments (nested parentheses) outside quoted strings by a blank. */
function stripComments(value: string): string {
  let out = "";
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i] as string;
    if (quoted) {
      out += c;
      if (c === "\\") {
        out += value[i + 1] ?? "";
        i += 1;
      } else if (c === '"') quoted = false;
    } else if (depth > 0) {
      if (c === "\\") i += 1;
      else if (c === "(") depth += 1;
      else if (c === ")") depth -= 1;
    } else if (c === "(") {
      depth = 1;
      out += " ";
    } else {
      if (c === '"') quoted = true;
      out += c;
    }
  }
  return out;
}

/** Splits at `sep` outside quoted strings. */
function splitOutsideQuotes(value: string, sep: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i] as string;
    if (c === "\\" && quoted) {
      current += c + (value[i + 1] ?? "");
      i += 1;
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === sep && !quoted) {
      parts.push(current);
      current = "";
    } else current += c;
  }
  parts.push(current);
  return parts;
}

const unquote = (v: string) =>
  v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1).replace(/\\(.)/g, "$1") : v;

/**
 * Parses one Authentication-Results value (`authserv-id [version]; method=result props; ...` or
 * `authserv-id; none`), RFC 8601 section 2.2. Undefined when it has no authserv-id.
 */
export function parseAuthResults(value: string): AuthResultsHeader | undefined {
  const [head = "", ...resinfos] = splitOutsideQuotes(stripComments(value.replace(/\r?\n[ \t]+/g, " ")), ";");
  const authservId = head.trim().split(/\s+/)[0]?.toLowerCase() ?? "";
  if (!authservId) return undefined;
  const results: AuthResult[] = [];
  for (const info of resinfos) {
    // `method = result` may carry blanks around `=`; tokens are then `key=value` pairs.
    const tokens = info
      .replace(/\s*=\s*/g, "=")
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    const first = tokens.shift();
    if (!first || first.toLowerCase() === "none") continue;
    const eq = first.indexOf("=");
    if (eq <= 0) continue;
    const method = (first.slice(0, eq).split("/")[0] ?? "").toLowerCase();
    const result = first.slice(eq + 1).toLowerCase();
    const props: Record<string, string> = {};
    for (const token of tokens) {
      const at = token.indexOf("=");
      if (at <= 0) continue;
      const key = token.slice(0, at).toLowerCase();
      if (key === "reason" || !key.includes(".")) continue;
      props[key] = unquote(token.slice(at + 1));
    }
    results.push({ method, result, props });
  }
  return { authservId, results };
}

/** `mail.example.com` is aligned with `example.com` and with itself (relaxed alignment, no public-suffix list: a bare TLD never aligns). */
function aligned(signingDomain: string, fromDomain: string): boolean {
  const d = signingDomain.toLowerCase().replace(/\.$/, "");
  if (!d.includes(".")) return false;
  return fromDomain === d || fromDomain.endsWith(`.${d}`);
}

/**
 * The Authentication-Results values the receiving server wrote: the trusted ones above the first
 * `Received` line. A server prepends its results above the trace of the mail's hops; anything below
 * the first trace line came with the mail and may be forged (RFC 8601 section 7.1), even when it
 * names a trusted server, so a server that wrote no results of its own (a filter skipping local or
 * authenticated senders) leaves nothing to decide by.
 */
export function receivedAuthResults(
  headerLines: readonly { key: string; line: string }[],
  trustedAuthservIds: readonly string[],
): string[] {
  const trusted = new Set(trustedAuthservIds.map((id) => id.toLowerCase()));
  const out: string[] = [];
  for (const { key, line } of headerLines) {
    if (key === "received") break;
    if (key !== "authentication-results") continue;
    const value = line.slice(line.indexOf(":") + 1);
    const id = parseAuthResults(value)?.authservId;
    if (id && trusted.has(id)) out.push(value);
  }
  return out;
}

export type SenderVerdict =
  | { ok: true; by: string; method: "dmarc" | "dkim" }
  | { ok: false; reason: string };

/**
 * The verdict on a mail's From domain from its Authentication-Results header values (top first).
 * Only headers of a trusted authserv-id count; among those a `dmarc=fail` for the domain refuses
 * (a forged pass written below the server's own header changes nothing), else a DMARC pass or an
 * aligned DKIM pass accepts.
 */
export function judgeSender(
  headerValues: readonly string[],
  fromDomain: string,
  trustedAuthservIds: readonly string[],
): SenderVerdict {
  const domain = fromDomain.toLowerCase();
  if (!domain) return { ok: false, reason: "no From domain" };
  if (trustedAuthservIds.length === 0)
    return { ok: false, reason: "no trustedAuthservIds configured: no receiving server is trusted" };
  const trusted = new Set(trustedAuthservIds.map((id) => id.toLowerCase()));
  const headers = headerValues
    .map(parseAuthResults)
    .filter((h): h is AuthResultsHeader => h !== undefined && trusted.has(h.authservId));
  if (headers.length === 0)
    return {
      ok: false,
      reason: `no Authentication-Results from a trusted server (${[...trusted].join(", ")})`,
    };
  let dmarcPass: SenderVerdict | undefined;
  let dkimPass: SenderVerdict | undefined;
  for (const h of headers) {
    for (const r of h.results) {
      if (r.method === "dmarc" && (r.props["header.from"] ?? "").toLowerCase() === domain) {
        if (r.result !== "pass")
          return { ok: false, reason: `dmarc=${r.result} for ${domain} (${h.authservId})` };
        dmarcPass ??= { ok: true, by: h.authservId, method: "dmarc" };
      }
      if (r.method === "dkim" && r.result === "pass") {
        const signer = r.props["header.d"] ?? r.props["header.i"]?.split("@").pop() ?? "";
        if (aligned(signer, domain)) dkimPass ??= { ok: true, by: h.authservId, method: "dkim" };
      }
    }
  }
  return dmarcPass ?? dkimPass ?? { ok: false, reason: `no DMARC pass or aligned DKIM pass for ${domain}` };
}
