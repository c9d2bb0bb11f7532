// A private CA for IMAP and SMTP (`tlsCaFile`), and an error that names the fix when a server
// certificate is not accepted.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

/**
 * The PEM of `tlsCaFile`, a relative path read from the project folder (`appRoot`, as doctor reads
 * it; else the working directory); a file that cannot be read fails the start.
 */
export function readCaFile(file: string, appRoot?: string): Buffer {
  try {
    return readFileSync(resolve(appRoot ?? "", file));
  } catch (err) {
    const code = (err as { code?: string }).code ?? String(err);
    throw new Error(
      `email: tlsCaFile: cannot read ${file} (${code}); it must be the PEM file of the CA that signed the IMAP and SMTP server certificates`,
      { cause: err },
    );
  }
}

// Node's certificate verification failures (OpenSSL X509 verify codes and the host name check).
const CERTIFICATE_CODES = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_UNTRUSTED",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** For a certificate verification error: what to do about it; else undefined. */
export function certificateHint(err: unknown): string | undefined {
  // nodemailer keeps the TLS code as `originalCode` under its own `ESOCKET`.
  const e = err as { code?: string; originalCode?: string; cause?: { code?: string } } | undefined;
  const code = [e?.code, e?.originalCode, e?.cause?.code].find(
    (c) => c !== undefined && CERTIFICATE_CODES.has(c),
  );
  if (!code) return undefined;
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID")
    return `the server certificate does not name this host (${code}): use the host name the certificate was issued for`;
  if (code === "CERT_HAS_EXPIRED" || code === "CERT_NOT_YET_VALID")
    return `the server certificate is not valid now (${code}): renew it on the server`;
  return `the server certificate was not accepted (${code}): set tlsCaFile in the entry to the PEM file of the CA that signed it (or add that CA with NODE_EXTRA_CA_CERTS)`;
}
