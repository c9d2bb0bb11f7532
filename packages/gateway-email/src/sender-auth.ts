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

/** The value of a header line (after `Name:`). */
const headerValue = (line: string) => line.slice(line.indexOf(":") + 1);

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
    const value = headerValue(line);
    const id = parseAuthResults(value)?.authservId;
    if (id && trusted.has(id)) out.push(value);
  }
  return out;
}

/** The host a `Received` value names after `by` (RFC 5321 section 4.4), lower case, comments removed. */
export function receivedBy(value: string): string | undefined {
  const m = /(?:^|\s)by\s+([^\s;]+)/i.exec(stripComments(value.replace(/\r?\n[ \t]+/g, " ")));
  return m?.[1]?.toLowerCase().replace(/\.$/, "") || undefined;
}

export interface ServerAuthResults {
  /** The values the receiving server wrote: only their passes count. */
  own: string[];
  /** Every trusted value in the mail, wherever it is: a DMARC result other than pass in any refuses. */
  all: string[];
  /** Why trusted values below the first Received were not taken as the server's (for the log). */
  note?: string;
}

const OPTION_HINT =
  "if your receiving server writes results for every mail below its own Received line and removes incoming ones naming it, set authResultsBelowReceived: true (README, Who may decide)";

/**
 * The receiving server's own Authentication-Results and every other trusted one. Always: the
 * trusted values above the first `Received` ({@link receivedAuthResults}). With `belowReceived`
 * (the entry's `authResultsBelowReceived`, the operator's word that the server writes results for
 * every mail right below its own `Received` and removes incoming ones naming it, as Gmail and
 * Postfix with OpenDKIM/OpenDMARC place theirs) also the topmost trusted value in the block right
 * below the topmost `Received` whose `by` host is trusted: the server wrote it before any header
 * that came with the mail, so a forged one in that block lies below it and never counts. A trusted
 * value between the first `Received` and that one means the trace is not the server's as expected
 * (its own `Received` names another host, the trusted one below is the sender's): nothing there is taken.
 */
export function serverAuthResults(
  headerLines: readonly { key: string; line: string }[],
  trustedAuthservIds: readonly string[],
  options: { belowReceived?: boolean } = {},
): ServerAuthResults {
  const trusted = new Set(trustedAuthservIds.map((id) => id.toLowerCase()));
  const own = receivedAuthResults(headerLines, trustedAuthservIds);
  const all: string[] = [];
  const trustedAt: number[] = [];
  let firstReceived = -1;
  let serverReceived = -1;
  headerLines.forEach(({ key, line }, i) => {
    if (key === "received") {
      if (firstReceived < 0) firstReceived = i;
      const by = receivedBy(headerValue(line));
      if (serverReceived < 0 && by && trusted.has(by)) serverReceived = i;
    } else if (key === "authentication-results") {
      const value = headerValue(line);
      const id = parseAuthResults(value)?.authservId;
      if (id && trusted.has(id)) {
        all.push(value);
        trustedAt.push(i);
      }
    }
  });
  const below = firstReceived < 0 ? [] : trustedAt.filter((i) => i > firstReceived);
  if (below.length === 0) return { own, all };
  const ids = [...trusted].join(", ");
  const found = `a trusted Authentication-Results header (${ids}) was found below the first Received line`;
  if (!options.belowReceived)
    return {
      own,
      all,
      note: `${found}, where Gmail and Postfix with OpenDKIM/OpenDMARC write theirs: ${OPTION_HINT}`,
    };
  if (serverReceived < 0)
    return {
      own,
      all,
      note: `${found}; authResultsBelowReceived is set, but no Received line names a trusted server (${ids}) after by`,
    };
  if (below.some((i) => i < serverReceived))
    return {
      own,
      all,
      note: `${found} above the Received line by a trusted server: not taken (that server's own Received line must name it after by)`,
    };
  let next = headerLines.findIndex((h, i) => i > serverReceived && h.key === "received");
  if (next < 0) next = headerLines.length;
  const topmost = below.find((i) => i > serverReceived && i < next);
  if (topmost === undefined)
    return { own, all, note: `${found}, but none right below the trusted server's own Received line` };
  return { own: [...own, headerValue(headerLines[topmost]?.line ?? "")], all };
}

export type SenderVerdict =
  | { ok: true; by: string; method: "dmarc" | "dkim" }
  | { ok: false; reason: string };

/**
 * The verdict on a mail's From domain from its Authentication-Results header values (top first).
 * Only headers of a trusted authserv-id count. A DMARC result other than pass for the domain refuses,
 * in `headerValues` or anywhere in `refusing` (the mail's other trusted values: a header the server
 * did not write may be forged, and a forger only refuses his own mail); else a DMARC pass or an
 * aligned DKIM pass in `headerValues` accepts.
 */
export function judgeSender(
  headerValues: readonly string[],
  fromDomain: string,
  trustedAuthservIds: readonly string[],
  refusing: readonly string[] = [],
): SenderVerdict {
  const domain = fromDomain.toLowerCase();
  if (!domain) return { ok: false, reason: "no From domain" };
  if (trustedAuthservIds.length === 0)
    return { ok: false, reason: "no trustedAuthservIds configured: no receiving server is trusted" };
  const trusted = new Set(trustedAuthservIds.map((id) => id.toLowerCase()));
  const parse = (values: readonly string[]) =>
    values
      .map(parseAuthResults)
      .filter((h): h is AuthResultsHeader => h !== undefined && trusted.has(h.authservId));
  const headers = parse(headerValues);
  for (const h of [...headers, ...parse(refusing)])
    for (const r of h.results)
      if (
        r.method === "dmarc" &&
        r.result !== "pass" &&
        (r.props["header.from"] ?? "").toLowerCase() === domain
      )
        return { ok: false, reason: `dmarc=${r.result} for ${domain} (${h.authservId})` };
  if (headers.length === 0)
    return {
      ok: false,
      reason: `no Authentication-Results from a trusted server (${[...trusted].join(", ")})`,
    };
  let dmarcPass: SenderVerdict | undefined;
  let dkimPass: SenderVerdict | undefined;
  for (const h of headers) {
    for (const r of h.results) {
      if (r.method === "dmarc" && (r.props["header.from"] ?? "").toLowerCase() === domain)
        dmarcPass ??= { ok: true, by: h.authservId, method: "dmarc" };
      if (r.method === "dkim" && r.result === "pass") {
        const signer = r.props["header.d"] ?? r.props["header.i"]?.split("@").pop() ?? "";
        if (aligned(signer, domain)) dkimPass ??= { ok: true, by: h.authservId, method: "dkim" };
      }
    }
  }
  return dmarcPass ?? dkimPass ?? { ok: false, reason: `no DMARC pass or aligned DKIM pass for ${domain}` };
}
