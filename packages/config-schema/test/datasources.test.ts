import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatIssue, loadProject, missingDatasourceEnv } from "../src/index.js";
import { expectError, loadErrors, loadOk, writeProject } from "./helpers.js";

const PG = "datasources:\n  main:\n    type: postgres\n    urlEnvVar: DATABASE_URL\n";

describe("agentsvc.config: postgres datasources", () => {
  it("reads a postgres datasource with its defaults (pool 10, TLS left to the URL / host)", async () => {
    const p = await loadOk({ "agentsvc.config.yaml": PG });
    expect(p.config.datasources).toEqual({
      agentsvc: { type: "sqlite" },
      main: { type: "postgres", urlEnvVar: "DATABASE_URL", pool: 10 },
    });
  });

  it("reads every key: pool, ssl, sslCaFile, applicationName, statementTimeoutMs, connectTimeoutMs, idleTimeoutMs, maxHeldThreads", async () => {
    const p = await loadOk({
      "agentsvc.config.yaml": `${PG}    pool: 25\n    ssl: verify-full\n    sslCaFile: ./ca.pem\n    applicationName: chat-eu\n    statementTimeoutMs: 30000\n    connectTimeoutMs: 5000\n    idleTimeoutMs: 0\n    maxHeldThreads: 200\n`,
      "ca.pem": "-----BEGIN CERTIFICATE-----\n",
    });
    expect(p.config.datasources.main).toEqual({
      type: "postgres",
      urlEnvVar: "DATABASE_URL",
      pool: 25,
      ssl: "verify-full",
      sslCaFile: "./ca.pem",
      applicationName: "chat-eu",
      statementTimeoutMs: 30000,
      connectTimeoutMs: 5000,
      idleTimeoutMs: 0,
      maxHeldThreads: 200,
    });
  });

  it("store names the datasource of the project's own store; an undeclared one is an error", async () => {
    const p = await loadOk({ "agentsvc.config.yaml": `${PG}store: main\n` });
    expect(p.config.store).toBe("main");
    const errors = await loadErrors({ "agentsvc.config.yaml": `${PG}store: mian\n` });
    expectError(
      errors,
      "agentsvc.config.yaml",
      "store",
      /must name a declared datasource \(agentsvc, main\)/,
    );
  });

  it("store.durability: power (the default) or process; store may also be a mapping naming the datasource", async () => {
    expect((await loadOk({ "agentsvc.config.yaml": `${PG}store: main\n` })).config.storeDurability).toBe(
      "power",
    );
    const p = await loadOk({
      "agentsvc.config.yaml": `${PG}store:\n  datasource: main\n  durability: process\n`,
    });
    expect(p.config.store).toBe("main");
    expect(p.config.storeDurability).toBe("process");
    const q = await loadOk({ "agentsvc.config.yaml": "store:\n  durability: process\n" });
    expect(q.config.store).toBeUndefined();
    expect(q.config.storeDurability).toBe("process");
    expectError(
      await loadErrors({ "agentsvc.config.yaml": "store:\n  durability: fast\n" }),
      "agentsvc.config.yaml",
      "store.durability",
      /must be power \(fsync before every answer: survives power loss\) or process/,
    );
    expectError(
      await loadErrors({ "agentsvc.config.yaml": "store:\n  durabilty: process\n" }),
      "agentsvc.config.yaml",
      "store.durabilty",
      /did you mean "durability"/,
    );
  });

  it("keeps publicBaseUrl from the config file", async () => {
    const p = await loadOk({ "agentsvc.config.yaml": "publicBaseUrl: https://chat.example.com\n" });
    expect(p.config.publicBaseUrl).toBe("https://chat.example.com");
  });

  it("a webui entry may name the postgres datasource", async () => {
    const p = await loadOk({
      "agentsvc.config.yaml": PG,
      "gateways/web.yaml": "exposes: webui\npath: /chat\ndatabase:\n  datasource: main\n",
    });
    expect(p.exposures[0]).toMatchObject({ database: { datasource: "main" } });
  });

  it("rejects unknown keys, a missing urlEnvVar, a pasted URL, a bad pool and a bad ssl mode, naming each key", async () => {
    const errors = await loadErrors({
      "agentsvc.config.yaml":
        "datasources:\n" +
        "  a:\n    type: postgres\n    urlEnvVar: DATABASE_URL\n    url: postgres://x\n" +
        "  g:\n    type: postgres\n    urlEnvVar: G_URL\n    pol: 3\n" +
        "  b:\n    type: postgres\n" +
        "  c:\n    type: postgres\n    urlEnvVar: postgres://app:letmein-secret@db/x\n" +
        "  d:\n    type: postgres\n    urlEnvVar: D_URL\n    pool: 0\n" +
        "  e:\n    type: postgres\n    urlEnvVar: E_URL\n    pool: 2.5\n    ssl: prefer\n" +
        "  f:\n    type: sqlite\n    urlEnvVar: F_URL\n",
    });
    const file = "agentsvc.config.yaml";
    expectError(
      errors,
      file,
      "datasources.a.url",
      /unknown key in a postgres datasource \(known keys: type, urlEnvVar, pool/,
    );
    expectError(errors, file, "datasources.g.pol", /did you mean "pool"\?/);
    expectError(errors, file, "datasources.b.urlEnvVar", /is required in a postgres datasource/);
    const pasted = expectError(
      errors,
      file,
      "datasources.c.urlEnvVar",
      /must be the name of an environment variable/,
    );
    expect(formatIssue(pasted)).not.toContain("letmein-secret");
    expectError(
      errors,
      file,
      "datasources.d.pool",
      /must be at least 1 \(connections per instance\) \(got 0\)/,
    );
    expectError(errors, file, "datasources.e.pool", /must be an integer/);
    expectError(errors, file, "datasources.e.ssl", /must be one of off, require, verify-full/);
    expectError(errors, file, "datasources.f.urlEnvVar", /unknown key in a sqlite datasource/);
    expect(errors.map(formatIssue).join("\n")).not.toContain("letmein-secret");
  });

  it("rejects a maxHeldThreads below 1 or not an integer and a negative idleTimeoutMs, naming the key and what it bounds", async () => {
    const errors = await loadErrors({
      "agentsvc.config.yaml":
        "datasources:\n" +
        "  a:\n    type: postgres\n    urlEnvVar: A_URL\n    maxHeldThreads: 0\n    idleTimeoutMs: -1\n" +
        "  b:\n    type: postgres\n    urlEnvVar: B_URL\n    maxHeldThreads: 2.5\n    idleTimeoutMs: 86400001\n" +
        "  c:\n    type: postgres\n    urlEnvVar: C_URL\n    maxHeldThreads: many\n    maxHeldThread: 3\n",
    });
    const file = "agentsvc.config.yaml";
    expectError(
      errors,
      file,
      "datasources.a.maxHeldThreads",
      /must be at least 1 \(threads one instance holds at once, each an advisory lock\) \(got 0\)/,
    );
    expectError(
      errors,
      file,
      "datasources.a.idleTimeoutMs",
      /must be at least 0 \(how long an idle pooled connection is kept, in ms; 0 keeps it until stop\) \(got -1\)/,
    );
    expectError(
      errors,
      file,
      "datasources.b.maxHeldThreads",
      /must be an integer \(threads one instance holds/,
    );
    expectError(errors, file, "datasources.b.idleTimeoutMs", /must be at most 86400000/);
    expectError(errors, file, "datasources.c.maxHeldThreads", /must be an integer/);
    expectError(errors, file, "datasources.c.maxHeldThread", /did you mean "maxHeldThreads"\?/);
    expect(errors).toHaveLength(6);
  });

  it("rejects a datasource that is not a mapping", async () => {
    const errors = await loadErrors({ "agentsvc.config.yaml": "datasources:\n  main: postgres\n" });
    expectError(errors, "agentsvc.config.yaml", "datasources.main", /must be a mapping \(a datasource/);
  });

  it("sslCaFile needs ssl: verify-full (error) and a missing CA file is a warning (it may be mounted only where the service runs)", async () => {
    const errors = await loadErrors({
      "agentsvc.config.yaml": `${PG}    ssl: require\n    sslCaFile: ./ca.pem\n`,
    });
    expectError(
      errors,
      "agentsvc.config.yaml",
      "datasources.main.sslCaFile",
      /is only used with ssl: verify-full/,
    );
    const dir = writeProject({
      "agentsvc.config.yaml": `${PG}    ssl: verify-full\n    sslCaFile: ./ca.pem\n`,
    });
    const r = await loadProject(dir);
    expect(r.ok).toBe(true);
    expect(r.warnings.map(formatIssue)).toEqual([
      'agentsvc.config.yaml: datasources.main.sslCaFile: file "./ca.pem" does not exist under the project: `agentsvc start` fails until it holds the CA certificate (PEM)',
    ]);
    writeFileSync(join(dir, "ca.pem"), "pem");
    expect((await loadProject(dir)).warnings).toEqual([]);
  });

  it("missingDatasourceEnv: one warning per postgres datasource whose variable is unset or empty", async () => {
    const p = await loadOk({
      "agentsvc.config.yaml": `${PG}  replica:\n    type: postgres\n    urlEnvVar: REPLICA_URL\n  local:\n    type: sqlite\n`,
    });
    expect(
      missingDatasourceEnv(p, { DATABASE_URL: "postgres://x", REPLICA_URL: "" }).map(formatIssue),
    ).toEqual([
      'agentsvc.config.yaml: datasources.replica.urlEnvVar: environment variable REPLICA_URL is not set: `agentsvc start` fails until it holds the connection string of the postgres datasource "replica" (postgres://user:password@host:port/database)',
    ]);
    expect(missingDatasourceEnv(p, { DATABASE_URL: "postgres://x", REPLICA_URL: "postgres://y" })).toEqual(
      [],
    );
    expect(missingDatasourceEnv(await loadOk({}), {})).toEqual([]);
  });
});
