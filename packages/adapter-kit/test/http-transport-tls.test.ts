// TLS as fetch gave it: an https platform whose certificate Node does not trust is refused before
// anything is sent (a network failure, retried as before), the same server is answered once its CA is
// trusted the way Node is told (NODE_EXTRA_CA_CERTS, read at process start: a child process,
// https://nodejs.org/api/cli.html#node_extra_ca_certsfile), and a certificate for another name is
// refused even from a trusted CA. Certificates: a throwaway CA made with openssl (P-256: fast).
import { execFile, execFileSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PlatformCallError, PlatformClient } from "../src/index.js";

// The child loads the built transport (`pnpm build`): Node runs it as users do, its relative imports
// resolved as compiled.
const transportSource = join(import.meta.dirname, "../dist/http-transport.js");
let dir: string;
const servers: Server[] = [];
/** Requests each server answered. */
const asked = { right: 0, other: 0 };
let right: string;
let other: string;

const KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
const openssl = (args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });

/** A key and a certificate signed by the test CA for `san` (openssl's subjectAltName syntax). */
function issue(name: string, san: string): { key: Buffer; cert: Buffer } {
  openssl(["req", ...KEY, "-subj", `/CN=${name}`, "-keyout", `${name}.key`, "-out", `${name}.csr`]);
  writeFileSync(join(dir, `${name}.cnf`), `subjectAltName=${san}\n`);
  const ca = ["-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "1"];
  openssl(["x509", "-req", "-in", `${name}.csr`, ...ca, "-extfile", `${name}.cnf`, "-out", `${name}.pem`]);
  return { key: readFileSync(join(dir, `${name}.key`)), cert: readFileSync(join(dir, `${name}.pem`)) };
}

async function listen(tls: { key: Buffer; cert: Buffer }, count: keyof typeof asked): Promise<string> {
  const s = createServer(tls, (_req, res) => {
    asked[count]++;
    res.end('{"ok":true}');
  });
  s.listen(0, "127.0.0.1");
  await once(s, "listening");
  servers.push(s);
  return `https://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agentsvc-transport-tls-"));
  openssl([
    "req",
    "-x509",
    ...KEY,
    "-days",
    "1",
    "-subj",
    "/CN=agentsvc test CA",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
  ]);
  right = await listen(issue("ip", "IP:127.0.0.1"), "right");
  other = await listen(issue("named", "DNS:platform.example"), "other");
});
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  rmSync(dir, { recursive: true, force: true });
});

/** The transport in a fresh Node told to trust the test CA: each URL's status and body, or its error code. */
async function withTrustedCa(urls: string[]): Promise<string[]> {
  const script = `
    const { HttpTransport } = await import(${JSON.stringify(transportSource)});
    const t = new HttpTransport();
    const out = [];
    for (const url of ${JSON.stringify(urls)}) {
      try {
        const a = await t.request(url, { method: "GET", headers: {}, timeoutMs: 30000 });
        out.push(a.status + " " + (await a.text()));
      } catch (err) {
        out.push(err.code ?? String(err));
      }
    }
    t.close();
    console.log(JSON.stringify(out));`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--no-warnings", "--input-type=module", "-e", script],
    { env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, "ca.pem"), NODE_OPTIONS: "" } },
  );
  return JSON.parse(stdout) as string[];
}

describe("TLS", () => {
  it("refuses a platform whose certificate is not trusted: a network failure the outbox retries, nothing asked", async () => {
    const client = new PlatformClient({ platform: "acme", timeoutMs: 30_000 });
    const failed = await client.json("getMe", `${right}/me`).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(PlatformCallError);
    const err = failed as PlatformCallError;
    expect(err.facts).toEqual({ network: true, detail: "connection failed" });
    expect(err.cause).toMatchObject({ code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE" });
    expect(err.toSendError().permanent).toBe(false);
    expect(asked.right).toBe(0);
  });

  it("answers the same server once Node trusts its CA, and still refuses a certificate for another name", async () => {
    const before = asked.right;
    expect(await withTrustedCa([`${right}/me`, `${other}/me`])).toEqual([
      '200 {"ok":true}',
      "ERR_TLS_CERT_ALTNAME_INVALID",
    ]);
    expect(asked.right).toBe(before + 1);
    expect(asked.other).toBe(0);
  });
});
