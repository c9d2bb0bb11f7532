// Connection strings carry the password; nothing this package prints or throws may contain it.

const SECRET_PARAMS = /^(password|sslpassword|sslkey)$/i;

/**
 * The connection string with its password (and any password-like query parameter) replaced by
 * `***`. A string that is not a URL is not shown at all, since we cannot tell where its secret is.
 */
export function redactConnectionString(connectionString: string): string {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    return "(connection string not shown: it is not a postgres:// URL)";
  }
  if (url.password) url.password = "***";
  for (const key of [...url.searchParams.keys()]) {
    if (SECRET_PARAMS.test(key)) url.searchParams.set(key, "***");
  }
  return url.toString().replace("%2A%2A%2A", "***");
}

/** The secrets of a connection string (password, password-like parameters), for scrubbing messages. */
export function secretsOf(connectionString: string): string[] {
  const out: string[] = [];
  try {
    const url = new URL(connectionString);
    if (url.password) out.push(url.password, decodeURIComponent(url.password));
    for (const [key, value] of url.searchParams) if (SECRET_PARAMS.test(key) && value) out.push(value);
  } catch {
    // Not a URL: the caller shows none of it.
  }
  return [...new Set(out)].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
}

/** `text` with every secret replaced by `***`. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join("***");
  return out;
}
