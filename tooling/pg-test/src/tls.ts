// A throwaway CA and a server certificate for 127.0.0.1 (subjectAltName IP), for tests of TLS to a
// test server. P-256 keys: an RSA-2048 key took seconds on a loaded machine.
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestCertificates {
  /** The folder holding them (readable by the server's user). */
  dir: string;
  /** The CA's certificate (PEM): what a client checks the server against. */
  caFile: string;
  /** The server's certificate and key, owned by the server's user (it runs as `postgres` under root). */
  certFile: string;
  keyFile: string;
}

export function testCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), "agentsvc-pg-tls-"));
  const run = (args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  const key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  run([
    "req",
    "-x509",
    ...key,
    "-days",
    "2",
    "-subj",
    "/CN=agentsvc test CA",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
  ]);
  run(["req", ...key, "-subj", "/CN=127.0.0.1", "-keyout", "server.key", "-out", "server.csr"]);
  writeFileSync(join(dir, "ext.cnf"), "subjectAltName=IP:127.0.0.1\n");
  const sign = ["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial"];
  run([...sign, "-days", "2", "-extfile", "ext.cnf", "-out", "server.pem"]);
  chmodSync(dir, 0o755);
  for (const f of ["server.pem", "server.key"]) giveToServer(join(dir, f));
  return {
    dir,
    caFile: join(dir, "ca.pem"),
    certFile: join(dir, "server.pem"),
    keyFile: join(dir, "server.key"),
  };
}

/** A file only the server's user reads (PostgreSQL refuses a key others can read). */
export function giveToServer(file: string): void {
  chmodSync(file, 0o600);
  if (process.getuid?.() === 0) {
    const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"]).toString().trim());
    chownSync(file, id("-u"), id("-g"));
  }
}
