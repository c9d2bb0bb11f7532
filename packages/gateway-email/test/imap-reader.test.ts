// The IMAP side on its own against the test Dovecot: which messages a poll reads (UID SEARCH from
// the cursor, RFC 9051 section 6.4.4 https://www.rfc-editor.org/rfc/rfc9051#section-6.4.4, or
// every unseen one when there is no cursor or UIDVALIDITY changed, section 2.3.1.1), the \Seen
// flag set only for a recorded message, and where a reply to a mailbox message goes (the
// ENVELOPE's reply-to, which the server fills from From when the mail has no Reply-To, section 7.5.2).
import { Writable } from "node:stream";
import { type Dovecot, dovecotMissing, startDovecot } from "@agentsvc/testkit";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Cursor, ImapLoginError, ImapReader, type ImapSettings } from "../src/connection.js";
import { type Mailbox, mailbox } from "./harness.js";

let dovecot: Dovecot | undefined;
let box: Mailbox | undefined;
let reader: ImapReader | undefined;
let logs: { msg: string; [k: string]: unknown }[] = [];

const logger = pino(
  { level: "info" },
  new Writable({
    write: (chunk, _enc, done) => {
      for (const line of String(chunk).split("\n")) if (line) logs.push(JSON.parse(line));
      done();
    },
  }),
);

beforeAll(async () => {
  if (!dovecotMissing) dovecot = await startDovecot();
});
afterEach(async () => {
  reader?.close();
  reader = undefined;
  await box?.close();
  box = undefined;
  logs = [];
});
afterAll(async () => {
  await dovecot?.close();
});

async function setup(extra: Partial<ImapSettings> = {}) {
  const server = dovecot as Dovecot;
  box = await mailbox(server);
  reader = new ImapReader(
    {
      host: "127.0.0.1",
      port: server.port,
      user: box.user,
      pass: box.pass,
      mailbox: "INBOX",
      ca: server.cert,
      ...extra,
    },
    logger,
  );
  return { box, reader };
}

const mail = (n: string, more: { replyTo?: string } = {}) => ({
  messageId: `<${n}@example.test>`,
  from: `Ann <Ann.${n}@Example.test>`,
  subject: `Subject ${n}`,
  text: `text ${n}`,
  ...(more.replyTo ? { headers: { "Reply-To": more.replyTo } } : {}),
});

/** One poll; returns the UIDs handed to the handler and the cursors saved, in order. */
async function poll(
  r: ImapReader,
  cursor: Cursor | undefined,
  outcome: (uid: number) => "recorded" | "ignored",
) {
  const handled: number[] = [];
  const saved: Cursor[] = [];
  const count = await r.poll(
    cursor,
    async (source, uid) => {
      expect(source.toString()).toContain("Message-ID:");
      handled.push(uid);
      return outcome(uid);
    },
    async (c) => {
      saved.push(c);
    },
  );
  return { handled, saved, count };
}

describe.skipIf(dovecotMissing !== undefined)("the IMAP reader against Dovecot", () => {
  it("a first poll reads every unseen message oldest first, marks only recorded ones seen, and saves the cursor after each", async () => {
    const { box, reader } = await setup();
    const old = await box.append(mail("old"), true);
    const a = await box.append(mail("a"));
    const b = await box.append(mail("b"));
    const c = await box.append(mail("c"));
    const { handled, saved, count } = await poll(reader, undefined, (uid) =>
      uid === b ? "ignored" : "recorded",
    );
    expect(handled).toEqual([a, b, c]);
    expect(count).toBe(3);
    expect(saved.map((s) => s.lastUid)).toEqual([a, b, c]);
    expect(new Set(saved.map((s) => s.uidValidity)).size).toBe(1);
    expect(await box.seen(a)).toBe(true);
    expect(await box.seen(b)).toBe(false);
    expect(await box.seen(c)).toBe(true);
    expect(old).toBeLessThan(a);
  });

  it("with a cursor, only messages after it are read (seen or not), even when the newest is below it", async () => {
    const { box, reader } = await setup();
    const a = await box.append(mail("a"));
    const b = await box.append(mail("b"), true);
    const first = await poll(reader, undefined, () => "recorded");
    expect(first.handled).toEqual([a]);
    const cursor = first.saved.at(-1) as Cursor;
    // A later seen message is still new to the gateway: the cursor, not the flag, decides.
    const c = await box.append(mail("c"), true);
    const second = await poll(reader, { ...cursor, lastUid: b }, () => "recorded");
    expect(second.handled).toEqual([c]);
    // Nothing after the newest: `n:*` answers the newest message, which is not read again.
    const third = await poll(reader, { ...cursor, lastUid: c }, () => "recorded");
    expect(third.handled).toEqual([]);
    expect(third.saved).toEqual([]);
    expect(third.count).toBe(0);
  });

  it("a first poll of a mailbox with nothing unseen saves the cursor at the newest message, so old mail is never read", async () => {
    const { box, reader } = await setup();
    await box.append(mail("a"), true);
    const b = await box.append(mail("b"), true);
    const first = await poll(reader, undefined, () => "recorded");
    expect(first.handled).toEqual([]);
    expect(first.saved.map((s) => s.lastUid)).toEqual([b]);
  });

  it("a handler that throws stops the poll at that message: it stays unseen, the cursor stays before it, later ones wait", async () => {
    const { box, reader } = await setup();
    const a = await box.append(mail("a"));
    const b = await box.append(mail("b"));
    await box.append(mail("c"));
    const handled: number[] = [];
    const saved: Cursor[] = [];
    await expect(
      reader.poll(
        undefined,
        async (_s, uid) => {
          handled.push(uid);
          if (uid === b) throw new Error("recording failed");
          return "recorded";
        },
        async (c) => {
          saved.push(c);
        },
      ),
    ).rejects.toThrow("recording failed");
    expect(handled).toEqual([a, b]);
    expect(saved.map((s) => s.lastUid)).toEqual([a]);
    expect(await box.seen(b)).toBe(false);
  });

  it("a changed UIDVALIDITY reads every unseen message again, with a warning naming both values", async () => {
    const { box, reader } = await setup();
    const a = await box.append(mail("a"));
    const first = await poll(reader, undefined, () => "ignored");
    const cursor = first.saved.at(-1) as Cursor;
    const again = await poll(reader, { uidValidity: "1", lastUid: a }, () => "recorded");
    expect(again.handled).toEqual([a]);
    expect(again.saved.map((s) => s.uidValidity)).toEqual([cursor.uidValidity]);
    const warning = logs.find((l) => String(l.msg).startsWith("IMAP UIDVALIDITY changed"));
    expect(warning).toMatchObject({ was: "1", now: cursor.uidValidity, mailbox: "INBOX" });
  });

  it("looks up where a reply to a mailbox message goes: its Reply-To, else its From, in lower case, with its subject", async () => {
    const { box, reader } = await setup();
    await box.append(mail("plain"));
    await box.append(mail("listed", { replyTo: "Team <Team@Example.test>" }));
    expect(await reader.lookup("<plain@example.test>")).toEqual({
      from: "ann.plain@example.test",
      subject: "Subject plain",
    });
    expect(await reader.lookup("<listed@example.test>")).toEqual({
      from: "team@example.test",
      subject: "Subject listed",
    });
    expect(await reader.lookup("<nowhere@example.test>")).toBeUndefined();
    // A mail with neither Reply-To nor From (its envelope has NIL for both) names nobody to answer.
    await box.observer.append(
      "INBOX",
      "Subject: nobody\r\nMessage-ID: <nobody@example.test>\r\n\r\nhi\r\n",
      [],
    );
    expect(await reader.lookup("<nobody@example.test>")).toBeUndefined();
  });

  it("a poll after close connects again", async () => {
    const { box, reader } = await setup();
    const a = await box.append(mail("a"));
    await poll(reader, undefined, () => "ignored");
    reader.close();
    const again = await poll(reader, undefined, () => "recorded");
    expect(again.handled).toEqual([a]);
  });

  it("a wrong password is a rejected login naming the user and the server, not a temporary failure", async () => {
    const { box, reader } = await setup({ pass: "wrong" });
    const err = await reader
      .poll(
        undefined,
        async () => "recorded",
        async () => undefined,
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImapLoginError);
    expect((err as ImapLoginError).rejected).toBe(true);
    expect((err as Error).message).toContain(
      `IMAP login failed for ${box.user} at 127.0.0.1:${dovecot?.port}`,
    );
    // The server's response code and text, as RFC 5530 gives them, after the address.
    expect((err as Error).message).toContain(`${dovecot?.port} (AUTHENTICATIONFAILED: `);
  });

  it("an unreachable server fails the poll naming host, port and the system's reason", async () => {
    const server = dovecot as Dovecot;
    const { reader } = await setup();
    await server.stop();
    try {
      const err = await reader
        .poll(
          undefined,
          async () => "recorded",
          async () => undefined,
        )
        .catch((e: unknown) => e);
      expect(err).not.toBeInstanceOf(ImapLoginError);
      expect((err as Error).message).toBe(`IMAP connection to 127.0.0.1:${server.port} failed: ECONNREFUSED`);
      expect((err as Error).cause).toMatchObject({ code: "ECONNREFUSED" });
    } finally {
      await server.start();
    }
  });
});
