// One IMAP connection kept across polls and look-ups, ended by close, counted by a TCP relay on
// 127.0.0.1 in front of the test Dovecot (the TLS session passes through it untouched); and a refused
// login as its own error type, with the server's answer kept as the cause.
import { dovecotMissing } from "@agentsvc/testkit";
import { describe, expect, it } from "vitest";
import { ImapLoginError } from "../src/connection.js";
import { mail, readerOn } from "./imap-reader-rig.js";
import { relay } from "./tcp-relay.js";
import { until, useDovecot } from "./rig.js";

const dovecot = useDovecot();

describe.skipIf(dovecotMissing !== undefined)("the IMAP connection", () => {
  it("polls and look-ups share one connection; close ends it and the next poll opens one", async () => {
    const server = await dovecot.started();
    const counted = await relay(server.port);
    try {
      const { box, poll, reader } = await readerOn(dovecot, { port: counted.port });
      const a = await box.append(mail("a"));
      await poll(undefined);
      await poll(undefined);
      await reader.lookup("<a@example.test>");
      expect(counted.accepted()).toBe(1);
      reader.close();
      await until(() => counted.open() === 0, "the connection closed");
      const b = await box.append(mail("b"));
      expect((await poll({ uidValidity: "0", lastUid: a })).handled).toEqual([b]);
      expect(counted.accepted()).toBe(2);
    } finally {
      await counted.close();
    }
  });

  it("a look-up on the held connection finds a mail that arrived after the last poll", async () => {
    const { box, poll, reader } = await readerOn(dovecot);
    await box.append(mail("a"));
    await poll(undefined);
    await box.append(mail("late", { headers: { "Reply-To": "late@example.test" } }));
    expect(await reader.lookup("<late@example.test>")).toEqual({
      from: "late@example.test",
      subject: "Subject late",
    });
  });

  it("a refused login leaves no connection open", async () => {
    const server = await dovecot.started();
    const counted = await relay(server.port);
    try {
      const { poll } = await readerOn(dovecot, { port: counted.port, pass: "wrong" });
      await expect(poll(undefined)).rejects.toBeInstanceOf(ImapLoginError);
      expect(counted.accepted()).toBe(1);
      await until(() => counted.open() === 0, "the refused connection closed");
    } finally {
      await counted.close();
    }
  });

  it("a connection reset under the held connection is logged as an IMAP connection error, and the next poll connects again", async () => {
    const server = await dovecot.started();
    const counted = await relay(server.port);
    try {
      const { box, poll, logs } = await readerOn(dovecot, { port: counted.port });
      await poll(undefined);
      counted.reset();
      await until(() => logs.some((l) => l.msg === "IMAP connection error"), "the logged error");
      expect(logs.find((l) => l.msg === "IMAP connection error")?.err).toEqual(expect.any(String));
      const a = await box.append(mail("after-reset"));
      expect((await poll(undefined)).handled).toEqual([a]);
      expect(counted.accepted()).toBe(2);
    } finally {
      await counted.close();
    }
  });

  it("a refused login is an ImapLoginError by name, caused by the server's answer", async () => {
    const { poll } = await readerOn(dovecot, { pass: "wrong" });
    const err = await poll(undefined).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImapLoginError);
    expect((err as Error).name).toBe("ImapLoginError");
    expect((err as Error & { cause?: { authenticationFailed?: boolean } }).cause?.authenticationFailed).toBe(
      true,
    );
  });
});
