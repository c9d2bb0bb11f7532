// An ImapReader on a new mailbox of the file's shared Dovecot (useDovecot), closed after the test,
// with its log lines kept and one poll run at a time.
import { Writable } from "node:stream";
import { pino } from "pino";
import { type Cursor, type Handled, ImapReader, type ImapSettings } from "../src/connection.js";
import { mailbox, type RawMail } from "./harness.js";
import type { useDovecot } from "./rig.js";

export async function readerOn(dovecot: ReturnType<typeof useDovecot>, extra: Partial<ImapSettings> = {}) {
  const server = await dovecot.started();
  const box = await mailbox(server);
  const logs: { msg: string; [k: string]: unknown }[] = [];
  const logger = pino(
    { level: "info" },
    new Writable({
      write: (chunk, _enc, done) => {
        for (const line of String(chunk).split("\n")) if (line) logs.push(JSON.parse(line));
        done();
      },
    }),
  );
  const settings = {
    host: "127.0.0.1",
    port: server.port,
    user: box.user,
    pass: box.pass,
    mailbox: "INBOX",
    ca: server.cert,
    ...extra,
  };
  const reader = new ImapReader(settings, logger);
  dovecot.onCleanup(async () => {
    reader.close();
    await box.close();
  });
  /** One poll; the UIDs handed to the handler, the cursors saved, in order, and the count it returned. */
  const poll = async (
    cursor: Cursor | undefined,
    outcome: (uid: number) => Handled | Promise<Handled> = () => "recorded",
  ) => {
    const handled: number[] = [];
    const saved: Cursor[] = [];
    const count = await reader.poll(
      cursor,
      async (_source, uid) => {
        handled.push(uid);
        return outcome(uid);
      },
      async (c) => {
        saved.push(c);
      },
    );
    return { handled, saved, count };
  };
  return { server, box, reader, logs, poll };
}

/** A mail from Ann with Message-ID `<n@example.test>`. */
export const mail = (n: string, more: Partial<RawMail> = {}): RawMail => ({
  messageId: `<${n}@example.test>`,
  from: `Ann <ann.${n}@example.test>`,
  subject: `Subject ${n}`,
  text: `text ${n}`,
  ...more,
});
