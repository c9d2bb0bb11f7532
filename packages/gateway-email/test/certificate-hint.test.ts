// What the e-mail gateway tells an operator about a server certificate Node refused (tls.ts). The
// codes are Node's: OpenSSL's X509 verify results as `err.code`
// (https://nodejs.org/api/tls.html#x509-certificate-error-codes) and ERR_TLS_CERT_ALTNAME_INVALID
// for a host name mismatch (https://nodejs.org/api/errors.html#err_tls_cert_altname_invalid);
// nodemailer wraps them as `ESOCKET` with the TLS code in `originalCode`; ImapFlow's may sit in `cause`.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { certificateHint, readCaFile } from "../src/tls.js";

const untrusted = [
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_UNTRUSTED",
];

describe("certificateHint", () => {
  it("names tlsCaFile for every code of a certificate from an unknown CA", () => {
    for (const code of untrusted) {
      expect(certificateHint({ code })).toBe(
        `the server certificate was not accepted (${code}): set tlsCaFile in the entry to the PEM file of the CA that signed it (or add that CA with NODE_EXTRA_CA_CERTS)`,
      );
    }
  });

  it("says to renew an expired or not yet valid certificate, and to use the right host name on a mismatch", () => {
    for (const code of ["CERT_HAS_EXPIRED", "CERT_NOT_YET_VALID"]) {
      expect(certificateHint({ code })).toBe(
        `the server certificate is not valid now (${code}): renew it on the server`,
      );
    }
    expect(certificateHint({ code: "ERR_TLS_CERT_ALTNAME_INVALID" })).toBe(
      "the server certificate does not name this host (ERR_TLS_CERT_ALTNAME_INVALID): use the host name the certificate was issued for",
    );
  });

  it("finds the code under nodemailer's ESOCKET and in a cause", () => {
    expect(certificateHint({ code: "ESOCKET", originalCode: "CERT_HAS_EXPIRED" })).toContain("renew it");
    expect(certificateHint({ code: "EIMAP", cause: { code: "CERT_UNTRUSTED" } })).toContain("tlsCaFile");
  });

  it("says nothing for errors that are not about a certificate, or no error at all", () => {
    expect(certificateHint({ code: "ECONNREFUSED" })).toBeUndefined();
    expect(certificateHint({ code: "ESOCKET", originalCode: "ETIMEDOUT" })).toBeUndefined();
    expect(certificateHint(new Error("boom"))).toBeUndefined();
    expect(certificateHint(undefined)).toBeUndefined();
    expect(certificateHint(null)).toBeUndefined();
  });
});

describe("readCaFile", () => {
  it("names the file and the reason it cannot be read, and keeps the cause", () => {
    const missing = join(mkdtempSync(join(tmpdir(), "agentsvc-ca-")), "ca.pem");
    let thrown: unknown;
    try {
      readCaFile(missing);
    } catch (e) {
      thrown = e;
    }
    expect((thrown as Error).message).toBe(
      `email: tlsCaFile: cannot read ${missing} (ENOENT); it must be the PEM file of the CA that signed the IMAP and SMTP server certificates`,
    );
    expect(((thrown as Error).cause as { code?: string }).code).toBe("ENOENT");
  });
});
