// The cluster link (thread locks, announcements carrying message text) connects with its
// datasource's TLS settings, as the store's pool does: on a real PostgreSQL with TLS on (and plain
// TCP still accepted, so a link that ignores the settings connects in plaintext and is seen so in
// pg_stat_ssl). Before, the link took the bare URL: plain with `ssl: verify-full` and `ssl: require`.
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PostgresDatasource } from "@agentsvc/config-schema";
import {
  postgresMissing,
  startPostgres,
  type TestCertificates,
  type TestPostgres,
  testCertificates,
} from "@agentsvc/pg-test";
import { connectPostgres, PostgresStoreError } from "@agentsvc/store-postgres";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { datasourceCoordination } from "../src/cluster/datasource-link.js";
import type { PgCoordination } from "../src/cluster/pg-coordination.js";

describe.skipIf(postgresMissing)("the cluster link connects with the datasource's TLS settings", () => {
  let pg: TestPostgres;
  let certs: TestCertificates;
  let other: TestCertificates;
  // The project root: sslCaFile is relative to it, as in a config file.
  let appRoot: string;

  beforeAll(async () => {
    certs = testCertificates();
    // Another CA: the server's certificate was not signed by it.
    other = testCertificates();
    appRoot = mkdtempSync(join(tmpdir(), "agentsvc-link-tls-"));
    copyFileSync(certs.caFile, join(appRoot, "ca.pem"));
    copyFileSync(other.caFile, join(appRoot, "wrong-ca.pem"));
    pg = await startPostgres({
      settings: ["ssl = on", `ssl_cert_file = '${certs.certFile}'`, `ssl_key_file = '${certs.keyFile}'`],
    });
  }, 60_000);
  afterAll(async () => {
    await pg?.stop();
    for (const dir of [certs?.dir, other?.dir, appRoot])
      if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const datasource = (keys: Partial<PostgresDatasource>): PostgresDatasource => ({
    type: "postgres",
    urlEnvVar: "DATABASE_URL",
    pool: 2,
    ...keys,
  });

  /**
   * The coordination of datasource `main` on a new database, as the server's compose opens it, its
   * URL ending in `query`; `url` is the database's plain loopback URL.
   */
  async function prepare(keys: Partial<PostgresDatasource>, query = "") {
    const url = await pg.createDatabase();
    const open = () =>
      datasourceCoordination({
        name: "main",
        datasource: datasource(keys),
        env: { DATABASE_URL: url + query },
        appRoot,
        source: "agentsvc.config.yaml",
        logger: pino({ level: "silent" }),
      });
    return { url, open };
  }

  /** pg_stat_ssl's `ssl` of each cluster link session on the database of `url` (read over loopback, plain). */
  async function linkSsl(url: string): Promise<boolean[]> {
    const observer = await connectPostgres({ connectionString: url, migrate: false, max: 1 });
    try {
      const { rows } = await observer.pool.query<{ ssl: boolean }>(
        `SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
          WHERE a.application_name = 'agentsvc-cluster' AND a.datname = current_database()`,
      );
      return rows.map((r) => r.ssl);
    } finally {
      await observer.close();
    }
  }

  async function closing<T>(coordination: PgCoordination, body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } finally {
      await coordination.close();
    }
  }

  it("ssl: verify-full with the CA that signed the server certificate: the link's session is over TLS", async () => {
    const { url, open } = await prepare({ ssl: "verify-full", sslCaFile: "./ca.pem" });
    const coordination = await open();
    await closing(coordination, async () => expect(await linkSsl(url)).toEqual([true]));
  }, 60_000);

  it("ssl: verify-full with another CA: opening fails naming the datasource and the fix, and leaves no link session", async () => {
    const { url, open } = await prepare({ ssl: "verify-full", sslCaFile: "./wrong-ca.pem" });
    let caught: unknown;
    try {
      await (await open()).close();
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(PostgresStoreError);
    const e = caught as PostgresStoreError;
    expect(e.code).toBe("tls_failed");
    expect(e.message).toContain(
      "agentsvc.config.yaml: datasources.main (cluster link): PostgreSQL at postgres://postgres@127.0.0.1:",
    );
    expect(e.message).toContain("the server certificate was not accepted");
    expect(e.message).toContain("set sslCaFile to the CA that signed it");
    expect(await linkSsl(url)).toEqual([]);
  }, 60_000);

  it("ssl: require: the link's session is over TLS without checking the certificate (signed by a CA it was not given)", async () => {
    const { url, open } = await prepare({ ssl: "require" });
    const coordination = await open();
    await closing(coordination, async () => expect(await linkSsl(url)).toEqual([true]));
  }, 60_000);

  it("the URL's sslmode=require (no ssl key) is the link's too", async () => {
    const { url, open } = await prepare({}, "?sslmode=require");
    const coordination = await open();
    await closing(coordination, async () => expect(await linkSsl(url)).toEqual([true]));
  }, 60_000);

  it("a loopback URL with no TLS setting stays plain TCP, as the pool does", async () => {
    const { url, open } = await prepare({});
    const coordination = await open();
    await closing(coordination, async () => expect(await linkSsl(url)).toEqual([false]));
  }, 60_000);
});
