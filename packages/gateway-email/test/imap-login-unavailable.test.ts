// A login the server cannot check now (RFC 5530 section 3: `NO [UNAVAILABLE]`, the authentication
// service is down) is a temporary failure, not refused credentials: the gateway retries instead of
// stopping. Dovecot gives no way to make its auth service fail on demand, so a small IMAP server over
// TLS answers the way RFC 3501 section 6.2.3 and RFC 5530 describe: greeting, CAPABILITY, then
// `NO [UNAVAILABLE]` to LOGIN (or, for the last case, a NO with no response code at all).
import { createServer, type TLSSocket } from "node:tls";
import { dovecotMissing } from "@agentsvc/testkit";
import { describe, expect, it } from "vitest";
import { ImapLoginError } from "../src/connection.js";
import { readerOn } from "./imap-reader-rig.js";
import { useSteppedGateway } from "./stepped-gateway.js";

const { dovecot, started } = useSteppedGateway();

/** An IMAP server whose authentication service is unavailable, with the test Dovecot's certificate. */
async function unavailableImap(
  tls: { key: string; cert: string },
  login = "NO [UNAVAILABLE] Temporary authentication failure",
) {
  const answers: Record<string, (tag: string) => string> = {
    CAPABILITY: (tag) => `* CAPABILITY IMAP4rev1\r\n${tag} OK CAPABILITY completed\r\n`,
    LOGIN: (tag) => `${tag} ${login}\r\n`,
    LOGOUT: (tag) => `* BYE logging out\r\n${tag} OK LOGOUT completed\r\n`,
  };
  const server = createServer(tls, (socket: TLSSocket) => {
    socket.on("error", () => undefined);
    socket.write("* OK IMAP4rev1 ready\r\n");
    let buffered = "";
    socket.on("data", (chunk) => {
      buffered += String(chunk);
      for (let end = buffered.indexOf("\r\n"); end >= 0; end = buffered.indexOf("\r\n")) {
        const [tag = "*", command = ""] = buffered.slice(0, end).split(" ");
        buffered = buffered.slice(end + 2);
        const answer = answers[command.toUpperCase()];
        socket.write(answer ? answer(tag) : `${tag} BAD unknown command\r\n`);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    port: (server.address() as { port: number }).port,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe.skipIf(dovecotMissing !== undefined)("an IMAP login the server cannot check now", () => {
  it("is an ImapLoginError that is not rejected credentials, quoting the server's UNAVAILABLE", async () => {
    const fake = await unavailableImap(await dovecot.started());
    try {
      const { poll } = await readerOn(dovecot, { port: fake.port });
      const err = await poll(undefined).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ImapLoginError);
      expect((err as ImapLoginError).rejected).toBe(false);
      expect((err as Error).message).toContain("(UNAVAILABLE: Temporary authentication failure)");
    } finally {
      await fake.close();
    }
  });

  it("the gateway logs it naming the login variables and polls again later, without reporting rejected credentials", async () => {
    const fake = await unavailableImap(await dovecot.started());
    try {
      const { lines, rejected, round } = await started({ imapPort: fake.port });
      expect(await round()).toBeGreaterThanOrEqual(100);
      expect(rejected).toEqual([]);
      const [logged] = lines.filter((l) => l.level === 50).map((l) => l.msg);
      expect(logged).toMatch(/^IMAP login failed for .* \(UNAVAILABLE: Temporary authentication failure\)/);
      expect(logged).toContain(
        "; check IMAP_USER and IMAP_PASS (an app password where the provider requires one)",
      );
    } finally {
      await fake.close();
    }
  });

  it("a refusal without a response code is rejected credentials quoting the server's text alone", async () => {
    const fake = await unavailableImap(await dovecot.started(), "NO Login refused");
    try {
      const { poll } = await readerOn(dovecot, { port: fake.port });
      const err = await poll(undefined).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ImapLoginError);
      expect((err as ImapLoginError).rejected).toBe(true);
      expect((err as Error).message).toMatch(/:\d+ \(Login refused\)$/);
    } finally {
      await fake.close();
    }
  });
});
