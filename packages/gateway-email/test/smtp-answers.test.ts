// What an SMTP answer does to a reply, over real SMTP on 127.0.0.1 (the `smtp-server` package):
// reply codes per RFC 5321 section 4.2 (https://www.rfc-editor.org/rfc/rfc5321#section-4.2.1:
// 4yz transient, 5yz permanent) and RFC 4954 section 6
// (https://www.rfc-editor.org/rfc/rfc4954#section-6: 535 credentials invalid, 534 mechanism too
// weak, 530 authentication required). A transient refusal is retried by the outbox, a permanent one
// dead-lettered at once, a refused login stops the gateway naming the password variable.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer } from "node:net";
import { join } from "node:path";
import { type GatewaySendError, isGatewaySendError } from "@agentsvc/adapter-kit";
import { type SmtpSink, startSmtpSink } from "@agentsvc/testkit";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OutgoingMail, sendMail, smtpRule, smtpTransport } from "../src/api.js";

function selfSigned(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), "agentsvc-smtp-"));
  execFileSync(
    "openssl",
    [
      // P-256: generated in milliseconds, where RSA-2048 took seconds on a loaded machine.
      ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
      ...["-days", "1", "-subj", "/CN=127.0.0.1"],
      ...[
        "-addext",
        "subjectAltName=IP:127.0.0.1",
        "-keyout",
        join(dir, "k.pem"),
        "-out",
        join(dir, "c.pem"),
      ],
    ],
    { stdio: "ignore" },
  );
  return { cert: readFileSync(join(dir, "c.pem"), "utf8"), key: readFileSync(join(dir, "k.pem"), "utf8") };
}

/** A port nothing listens on (taken from the system, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

const mail: OutgoingMail = {
  from: "bot@example.test",
  to: "ann@example.test",
  subject: "Re: Plans",
  text: "the answer",
  messageId: "<a1.agentsvc@example.test>",
};

let tls: { cert: string; key: string };
let sink: SmtpSink;
beforeAll(async () => {
  tls = selfSigned();
  sink = await startSmtpSink(tls);
});
afterAll(async () => {
  await sink.close();
});

const transport = (o: { port?: number; pass?: string } = {}) =>
  smtpTransport({
    host: "127.0.0.1",
    port: o.port ?? sink.port,
    user: sink.user,
    pass: o.pass ?? sink.pass,
    ca: tls.cert,
  });

async function failure(run: Promise<void>): Promise<GatewaySendError> {
  const err = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isGatewaySendError(err)) throw new Error(`expected a GatewaySendError, got ${String(err)}`);
  return err;
}

describe("SMTP answers to a reply", () => {
  it("a 550 refusal of the message is permanent: dead-lettered, not retried, the code in the message", async () => {
    sink.failNext(550);
    const err = await failure(sendMail(transport(), "SMTP_PASS", mail));
    expect(err.permanent).toBe(true);
    expect(err.credentials).toBe(false);
    // An answer came: no network failure; the log line names the platform and the call.
    expect(err.message).toMatch(/^email: SMTP failed, code 550 \(/);
  });

  it("a 451 or 421 answer is transient: retried later", async () => {
    for (const code of [451, 421]) {
      sink.failNext(code);
      const err = await failure(sendMail(transport(), "SMTP_PASS", mail));
      expect(err.permanent).toBe(false);
      expect(err.credentials).toBe(false);
      expect(err.message).toContain(`code ${code}`);
    }
  });

  it("a refused login (535) is rejected credentials naming the password variable", async () => {
    const err = await failure(sendMail(transport({ pass: "wrong" }), "SMTP_PASS", mail));
    expect(err.credentials).toBe(true);
    expect(err.permanent).toBe(false);
    expect(err.envVar).toBe("SMTP_PASS");
    expect(err.message).toContain("SMTP_PASS");
  });

  it("no server listening is a network failure, retried", async () => {
    const err = await failure(sendMail(transport({ port: await closedPort() }), "SMTP_PASS", mail));
    expect(err.permanent).toBe(false);
    expect(err.credentials).toBe(false);
    expect(err.message).toContain("failed (network)");
  });

  it("a reply is marked as an automatic answer (RFC 3834 section 5) and carries its threading headers only when given", async () => {
    const before = sink.mails.length;
    await sendMail(transport(), "SMTP_PASS", mail);
    await sendMail(transport(), "SMTP_PASS", {
      ...mail,
      messageId: "<a2.agentsvc@example.test>",
      inReplyTo: "<q1@example.test>",
      references: ["<root@example.test>", "<q1@example.test>"],
      html: "<p>the answer</p>",
      attachments: [{ filename: "r.txt", content: Buffer.from("hello"), contentType: "text/plain" }],
    });
    const [plain, threaded] = sink.mails.slice(before);
    expect(plain?.headers.get("auto-submitted")).toBe("auto-replied");
    expect(plain?.headers.get("x-auto-response-suppress")).toBe("All");
    expect(plain?.headers.has("in-reply-to")).toBe(false);
    expect(plain?.headers.has("references")).toBe(false);
    expect(plain?.html).toBe(false);
    expect(plain?.attachments).toEqual([]);
    expect(threaded?.inReplyTo).toBe("<q1@example.test>");
    expect(threaded?.references).toEqual(["<root@example.test>", "<q1@example.test>"]);
    expect(threaded?.html).toBe("<p>the answer</p>");
    expect(threaded?.attachments.map((a) => [a.filename, a.contentType, a.content.toString()])).toEqual([
      ["r.txt", "text/plain", "hello"],
    ]);
  });
});

describe("SMTP transport security", () => {
  it("on a submission port the password is never sent over a connection without STARTTLS", async () => {
    let logins = 0;
    const bare = new SMTPServer({
      secure: false,
      hideSTARTTLS: true,
      logger: false,
      authMethods: ["PLAIN", "LOGIN"],
      allowInsecureAuth: true,
      onAuth(_auth, _session, done) {
        logins += 1;
        done(null, { user: "bot" });
      },
      onData(stream, _session, done) {
        stream.resume();
        stream.on("end", () => done());
      },
    });
    const port = await closedPort();
    await new Promise<void>((r) => bare.listen(port, "127.0.0.1", () => r()));
    try {
      const err = await failure(sendMail(transport({ port }), "SMTP_PASS", mail));
      expect(err.permanent).toBe(false);
      expect(logins).toBe(0);
    } finally {
      await new Promise<void>((r) => bare.close(() => r()));
    }
  });

  it("port 465 is implicit TLS (RFC 8314 section 3.3); any other port requires STARTTLS", () => {
    const settings = { host: "127.0.0.1", user: "u", pass: "p" };
    expect(smtpTransport({ ...settings, port: 465 }).options).toMatchObject({
      secure: true,
      requireTLS: false,
    });
    expect(smtpTransport({ ...settings, port: 587 }).options).toMatchObject({
      secure: false,
      requireTLS: true,
    });
  });
});

describe("smtpRule", () => {
  it("classifies by the SMTP reply code: 530/534/535 credentials, 4yz retry, 5yz permanent", () => {
    for (const code of [530, 534, 535]) expect(smtpRule({ code })).toEqual({ kind: "credentials" });
    for (const code of [400, 421, 451, 499]) expect(smtpRule({ code })).toEqual({ kind: "retry" });
    for (const code of [500, 550, 554]) expect(smtpRule({ code })).toEqual({ kind: "permanent" });
    // Only 4yz and 5yz refuse (RFC 5321 section 4.2.1); another code, or one that is not an SMTP
    // number, is no SMTP answer to classify.
    for (const code of [250, 354, "550"]) expect(smtpRule({ code })).toBeUndefined();
  });

  it("no reply code: a network failure is retried; anything else is left to the shared defaults", () => {
    expect(smtpRule({ network: true })).toEqual({ kind: "retry" });
    expect(smtpRule({ network: false })).toBeUndefined();
    expect(smtpRule({ code: "EENVELOPE", network: false })).toBeUndefined();
  });
});
