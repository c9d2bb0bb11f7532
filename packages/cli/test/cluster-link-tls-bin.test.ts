// `agentsvc start` (the built, bundled bin) on a PostgreSQL datasource with `ssl: verify-full` and
// the project's CA file: the cluster link (application name `agentsvc-cluster`: thread locks,
// announcements carrying message text) is over TLS like the store's pool, as pg_stat_ssl shows.
// Before, the link took the bare URL and connected in plaintext (the test server accepts both).
import { readFileSync, rmSync } from "node:fs";
import {
  postgresMissing,
  startPostgres,
  type TestCertificates,
  type TestPostgres,
  testCertificates,
} from "@agentsvc/pg-test";
import { connectPostgres } from "@agentsvc/store-postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Served, serveBin } from "./child.js";
import { BOT_AGENT, tempDir, writeFiles } from "./helpers.js";

describe.skipIf(postgresMissing)("agentsvc start: the cluster link with ssl: verify-full", () => {
  let pg: TestPostgres;
  let certs: TestCertificates;
  let served: Served | undefined;
  const made: string[] = [];

  beforeAll(async () => {
    certs = testCertificates();
    made.push(certs.dir);
    pg = await startPostgres({
      settings: ["ssl = on", `ssl_cert_file = '${certs.certFile}'`, `ssl_key_file = '${certs.keyFile}'`],
    });
  }, 60_000);
  afterAll(async () => {
    await served?.stop();
    await pg?.stop();
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

  it("connects the cluster link over TLS, as the store's pool, checking the server against the project's CA file", async () => {
    const url = await pg.createDatabase();
    const dir = tempDir("agentsvc-link-tls-");
    made.push(dir);
    writeFiles(dir, {
      "package.json": JSON.stringify({ name: "link-tls", private: true, type: "module" }),
      "agents/bot.mjs": BOT_AGENT,
      "certs/ca.pem": readFileSync(certs.caFile, "utf8"),
      "agentsvc.config.yaml":
        "datasources:\n  main:\n    type: postgres\n    urlEnvVar: DATABASE_URL\n" +
        '    ssl: "verify-full"\n    sslCaFile: ./certs/ca.pem\n    applicationName: link-tls-pool\n' +
        "store: main\n",
    });
    served = await serveBin(["start", dir, "--port", "0"], { DATABASE_URL: url });
    // Read over loopback in plain TCP: the observer's own session is neither name.
    const observer = await connectPostgres({ connectionString: url, migrate: false, max: 1 });
    try {
      const { rows } = await observer.pool.query<{ name: string; ssl: boolean }>(
        `SELECT a.application_name AS name, s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
          WHERE a.datname = current_database() AND a.application_name IN ('agentsvc-cluster', 'link-tls-pool')`,
      );
      const link = rows.filter((r) => r.name === "agentsvc-cluster").map((r) => r.ssl);
      const pool = rows.filter((r) => r.name === "link-tls-pool").map((r) => r.ssl);
      expect(link).toEqual([true]);
      expect(pool.length).toBeGreaterThan(0);
      expect(pool.every((ssl) => ssl)).toBe(true);
    } finally {
      await observer.close();
    }
  }, 90_000);
});
