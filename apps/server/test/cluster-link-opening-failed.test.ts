import { describe, expect, it } from "vitest";
import { openingFailed } from "../src/cluster/datasource-link.js";

// Which failures of the cluster start are reported as "cannot connect" (the datasource's connect
// error naming target and fix) and which are handed on as they are. SQLSTATEs from PostgreSQL's
// "Appendix A. PostgreSQL Error Codes".
describe("a cluster link's start failure", () => {
  it("is a connection failure for a socket, TLS or timeout error of Node or the driver", () => {
    for (const code of ["ECONNREFUSED", "ENOTFOUND", "EPIPE", "ETIMEDOUT", "DEPTH_ZERO_SELF_SIGNED_CERT"])
      expect(openingFailed(Object.assign(new Error("x"), { code })), code).toBe(true);
    expect(openingFailed(new Error("Connection terminated due to connection timeout"))).toBe(true);
    expect(openingFailed(new Error("Connection terminated unexpectedly"))).toBe(true);
  });

  it("is a connection failure when PostgreSQL refuses the session", () => {
    // 28P01 password, 3D000 no database, 53300 too many connections, 57P03 starting up, 08006 failure.
    for (const code of ["28P01", "28000", "3D000", "53300", "57P03", "08006"])
      expect(openingFailed(Object.assign(new Error("x"), { code })), code).toBe(true);
  });

  it("is handed on as it is when PostgreSQL refuses a statement on the open link", () => {
    // 42601 the bus's LISTEN on a reserved word, 25006 read-only, 42501 privilege.
    for (const code of ["42601", "25006", "42501", "XX000"])
      expect(openingFailed(Object.assign(new Error("x"), { code })), code).toBe(false);
    expect(openingFailed(new Error("Cannot find module '@agentsvc/pg-cluster'"))).toBe(false);
  });
});
