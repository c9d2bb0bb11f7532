// resolvePoolConfig and connectError at their edges, without a server: every TLS parameter of the
// URL, the bounds of the numeric options, and each failure code a person gets a message for.
// Codes: PostgreSQL's errcodes appendix (28000 invalid_authorization_specification, 53300
// too_many_connections; https://www.postgresql.org/docs/current/errcodes-appendix.html) and Node's
// common system errors (https://nodejs.org/api/errors.html#common-system-errors).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type ConnectPostgresOptions, connectError, resolvePoolConfig } from "../src/connect.js";
import { PostgresStoreError } from "../src/errors.js";

const SECRET = "s3cret-Hunter2";
const url = `postgres://app:${SECRET}@db.internal:5432/agentsvc`;
const dir = mkdtempSync(join(tmpdir(), "agentsvc-connect-"));
const caFile = join(dir, "ca.pem");
writeFileSync(caFile, "-----BEGIN CERTIFICATE-----\nnot a real one\n-----END CERTIFICATE-----\n");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The PostgresStoreError resolvePoolConfig throws for `options`. */
function refusal(options: ConnectPostgresOptions): PostgresStoreError {
  try {
    resolvePoolConfig(options);
  } catch (err) {
    expect(err).toBeInstanceOf(PostgresStoreError);
    return err as PostgresStoreError;
  }
  throw new Error("expected resolvePoolConfig to refuse");
}

describe("resolvePoolConfig at its edges", () => {
  it("counts the IPv6 loopback, and a URL without a host (localhost), as loopback: TLS off by default", () => {
    expect(resolvePoolConfig({ connectionString: "postgres://u@[::1]:5432/x" }).ssl).toBe("off");
    expect(resolvePoolConfig({ connectionString: "postgres:///x" }).ssl).toBe("off");
  });

  it("takes the URL's sslmode aliases and ssl=true, and names the fix for a mode it cannot honour", () => {
    const mode = (query: string) => resolvePoolConfig({ connectionString: `${url}?${query}` }).ssl;
    expect(mode("ssl=true")).toBe("require");
    expect(mode("sslmode=no-verify")).toBe("require");
    expect(mode("sslmode=verify-ca")).toBe("verify-full");
    expect(mode("sslmode=verify-full")).toBe("verify-full");
    const err = refusal({ connectionString: `${url}?sslmode=allow` });
    expect(err.code).toBe("invalid_options");
    expect(err.message).toMatch(
      /^datasource "postgres": sslmode=allow in the connection string is not supported .*use sslmode=disable, require or verify-full, or set ssl: off \| require \| verify-full on the datasource$/,
    );
  });

  it("gives node-postgres a URL without any TLS parameter, the CA read as text from the URL's sslrootcert", () => {
    const resolved = resolvePoolConfig({
      connectionString: `${url}?ssl=true&sslmode=verify-full&sslrootcert=${encodeURIComponent(caFile)}&sslpassword=x&sslnegotiation=direct&uselibpqcompat=true&application_name=kept`,
    });
    const given = new URL(resolved.config.connectionString ?? "");
    expect([...given.searchParams.keys()]).toEqual(["application_name"]);
    expect(resolved.config.ssl).toEqual({
      rejectUnauthorized: true,
      ca: "-----BEGIN CERTIFICATE-----\nnot a real one\n-----END CERTIFICATE-----\n",
    });
  });

  it("accepts postgresql:// and the smallest value of each bound, which reach the pool's config", () => {
    const { config } = resolvePoolConfig({
      connectionString: "postgresql://u@localhost/x",
      max: 1,
      connectTimeoutMs: 1,
      statementTimeoutMs: 0,
      idleTimeoutMs: 0,
    });
    expect(config).toMatchObject({
      max: 1,
      connectionTimeoutMillis: 1,
      statement_timeout: 0,
      idleTimeoutMillis: 0,
    });
  });

  it("refuses each numeric option out of its bounds, naming it and what it must be", () => {
    const cases: [Partial<ConnectPostgresOptions>, RegExp][] = [
      [{ connectTimeoutMs: 0 }, /connectTimeoutMs must be an integer >= 1 \(got 0\)/],
      [{ statementTimeoutMs: -1 }, /statementTimeoutMs must be an integer >= 0 \(got -1\)/],
      [{ idleTimeoutMs: 1.5 }, /idleTimeoutMs must be an integer >= 0 \(got 1.5\)/],
    ];
    for (const [options, message] of cases) {
      const err = refusal({ connectionString: url, ...options });
      expect(err.code).toBe("invalid_options");
      expect(err.message).toMatch(/^datasource "postgres": /);
      expect(err.message).toMatch(message);
    }
  });

  it("refuses a client key, an unknown ssl value, and ssl=true against ssl: off, each as invalid_options naming the fix", () => {
    const key = refusal({ connectionString: `${url}?sslkey=/k.pem` });
    expect(key.message).toMatch(/sslkey in the connection string: client certificates are not supported/);
    const unknown = refusal({ connectionString: url, ssl: "prefer" as never });
    expect(unknown.message).toMatch(/ssl must be one of off, require, verify-full \(got "prefer"\)/);
    const conflict = refusal({ connectionString: `${url}?ssl=true`, ssl: "off" });
    expect(conflict.message).toMatch(
      /ssl is "off" but the connection string asks for sslmode=require; remove sslmode from the URL or make the two agree$/,
    );
    const named = refusal({ connectionString: `${url}?sslmode=verify-full`, ssl: "require" });
    expect(named.message).toMatch(/ssl is "require" but the connection string asks for sslmode=verify-full;/);
    const caWithoutVerify = refusal({ connectionString: url, ssl: "require", sslCaFile: caFile });
    for (const err of [key, unknown, conflict, named, caWithoutVerify])
      expect(err.code).toBe("invalid_options");
    // The URL and the option agreeing is no conflict.
    expect(resolvePoolConfig({ connectionString: `${url}?sslmode=require`, ssl: "require" }).ssl).toBe(
      "require",
    );
  });

  it("refuses what is not a URL, and a CA file it cannot read with the read's error as cause", () => {
    expect(refusal({ connectionString: "not a url" }).code).toBe("invalid_options");
    const unreadable = refusal({
      connectionString: url,
      ssl: "verify-full",
      sslCaFile: join(dir, "missing.pem"),
    });
    expect(unreadable.code).toBe("invalid_options");
    expect((unreadable.cause as { code?: string } | undefined)?.code).toBe("ENOENT");
  });
});

describe("connectError", () => {
  const { ctx } = resolvePoolConfig({
    connectionString: url,
    datasource: "main",
    source: "agentsvc.config.yaml",
    urlEnvVar: "DATABASE_URL",
  });
  const at = "agentsvc.config.yaml: datasources.main: ";
  const failure = (code: string | undefined, message: string) =>
    connectError(Object.assign(new Error(message), code === undefined ? {} : { code }), ctx);

  it("calls every network failure code unreachable, naming the code and where to look", () => {
    for (const code of [
      "ENOTFOUND",
      "EAI_AGAIN",
      "EHOSTUNREACH",
      "ENETUNREACH",
      "ETIMEDOUT",
      "ECONNRESET",
      "EPIPE",
    ]) {
      const err = failure(code, `connect ${code} db.internal`);
      expect(err.code, code).toBe("unreachable");
      expect(err.message).toBe(
        `${at}cannot reach PostgreSQL at postgres://app:***@db.internal:5432/agentsvc within 10000 ms (${code}): ` +
          "check that the server is running and accepts connections from here, and that the host and port in DATABASE_URL are right",
      );
    }
    // node-postgres's own words for a connection gone during start-up, without a code: the reason is named.
    expect(failure(undefined, "Connection terminated unexpectedly").message).toMatch(
      /within 10000 ms \(Connection terminated unexpectedly\)/,
    );
  });

  it("tells a pg_hba refusal (28000) from a wrong password, and a full server (53300) from both", () => {
    const hba = failure("28000", 'no pg_hba.conf entry for host "10.0.0.9", user "app", database "agentsvc"');
    expect(hba.code).toBe("auth_failed");
    expect(hba.message).toMatch(
      /does not accept this client \(no pg_hba\.conf entry .*\): allow this host, user and database in the server's pg_hba\.conf, or check DATABASE_URL$/,
    );
    const role = failure("28000", 'role "app" does not exist');
    expect(role.code).toBe("auth_failed");
    expect(role.message).toMatch(
      /refused the sign-in \(role "app" does not exist\): check the user name and password/,
    );
    const full = failure("53300", "sorry, too many clients already");
    expect(full.code).toBe("connect_failed");
    expect(full.message).toBe(
      `${at}PostgreSQL at postgres://app:***@db.internal:5432/agentsvc has no free connection slot (sorry, too many clients already): lower pool on the instances or raise max_connections`,
    );
  });

  it("keeps the failure as cause, names an unknown code, and gives the reason alone when there is no code", () => {
    const original = Object.assign(new Error("something odd"), { code: "XX000" });
    const coded = connectError(original, ctx);
    expect(coded.cause).toBe(original);
    expect(coded.message).toBe(
      `${at}cannot connect to PostgreSQL at postgres://app:***@db.internal:5432/agentsvc (XX000: something odd)`,
    );
    const bare = failure(undefined, "something odd");
    expect(bare.code).toBe("connect_failed");
    expect(bare.message).toBe(
      `${at}cannot connect to PostgreSQL at postgres://app:***@db.internal:5432/agentsvc (something odd)`,
    );
    const numeric = connectError(Object.assign(new Error("odd"), { code: 7 }), ctx);
    expect(numeric.message).toMatch(/\(odd\)$/);
  });

  it("names a certificate failure's code and the two ways out", () => {
    const err = failure("UNABLE_TO_VERIFY_LEAF_SIGNATURE", "unable to verify the first certificate");
    expect(err.code).toBe("tls_failed");
    expect(err.message).toMatch(
      /the server certificate was not accepted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE: unable to verify the first certificate\): set sslCaFile to the CA that signed it, or ssl: require to encrypt without checking the certificate$/,
    );
  });
});
