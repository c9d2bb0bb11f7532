// datasourceConnection: what a connection of its own to a datasource (the server's cluster link)
// opens with, resolved as the pool's (resolvePoolConfig), so the two never differ on TLS.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PostgresDatasource } from "@agentsvc/config-schema";
import { afterAll, describe, expect, it } from "vitest";
import { resolvePoolConfig } from "../src/connect.js";
import { datasourceConnection } from "../src/datasource.js";
import { PostgresStoreError } from "../src/errors.js";

const root = mkdtempSync(join(tmpdir(), "agentsvc-conn-settings-"));
writeFileSync(
  join(root, "ca.pem"),
  "-----BEGIN CERTIFICATE-----\nnot checked here\n-----END CERTIFICATE-----\n",
);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ds = (keys: Partial<PostgresDatasource> = {}): PostgresDatasource => ({
  type: "postgres",
  urlEnvVar: "DATABASE_URL",
  pool: 4,
  ...keys,
});
const settingsOf = (url: string, keys?: Partial<PostgresDatasource>) =>
  datasourceConnection({ name: "main", datasource: ds(keys), env: { DATABASE_URL: url }, appRoot: root });

describe("datasourceConnection", () => {
  it("a remote host without sslmode: TLS with the certificate checked, as the pool connects", () => {
    const s = settingsOf("postgres://app:pw@db.example.com:5432/app");
    expect(s.ssl).toEqual({ rejectUnauthorized: true });
    const pool = resolvePoolConfig({ connectionString: "postgres://app:pw@db.example.com:5432/app" }).config;
    expect(s.ssl).toEqual(pool.ssl);
    expect(s.connectionString).toBe(pool.connectionString);
  });

  it("ssl: verify-full with sslCaFile (relative to the project): the CA's PEM, read from the project root", () => {
    const s = settingsOf("postgres://app@127.0.0.1/app", { ssl: "verify-full", sslCaFile: "./ca.pem" });
    expect(s.ssl).toEqual({ rejectUnauthorized: true, ca: expect.stringContaining("not checked here") });
  });

  it("drops the URL's TLS parameters (node-postgres would let them win) and keeps its sslmode's meaning", () => {
    const s = settingsOf(
      "postgres://app@db.example.com/app?sslmode=require&sslnegotiation=postgres&application_name=a",
    );
    expect(s.ssl).toEqual({ rejectUnauthorized: false });
    expect(s.connectionString).toBe("postgres://app@db.example.com/app?application_name=a");
  });

  it("the datasource's connectTimeoutMs, else the pool's default", () => {
    expect(settingsOf("postgres://app@127.0.0.1/app", { connectTimeoutMs: 750 }).connectTimeoutMs).toBe(750);
    expect(settingsOf("postgres://app@127.0.0.1/app").connectTimeoutMs).toBe(10_000);
  });

  it("refuses what the pool refuses, naming the datasource: an unset variable, an sslmode node-postgres cannot honour", () => {
    expect(() =>
      datasourceConnection({ name: "main", datasource: ds(), env: {}, appRoot: root, source: "cfg.yaml" }),
    ).toThrow(/^cfg\.yaml: datasources\.main\.urlEnvVar: /);
    expect(() => settingsOf("postgres://app@db.example.com/app?sslmode=prefer")).toThrow(PostgresStoreError);
  });

  it("connectError names the datasource, the connection and the redacted target, never the password", () => {
    const s = settingsOf("postgres://app:s3cret@127.0.0.1:5999/app");
    const e = s.connectError(
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5999"), { code: "ECONNREFUSED" }),
      "cluster link",
    );
    expect(e.code).toBe("unreachable");
    expect(e.message).toMatch(
      /^agentsvc\.config: datasources\.main \(cluster link\): cannot reach PostgreSQL at postgres:\/\/app:\*\*\*@127\.0\.0\.1:5999\/app/,
    );
    expect(e.message).not.toContain("s3cret");
  });
});
