// The IMAP reader while the mailbox changes under it, against the test Dovecot: mail deleted by
// another client (EXPUNGE renumbers the messages' sequence numbers, never their UIDs: RFC 9051
// section 2.3.1, https://www.rfc-editor.org/rfc/rfc9051#section-2.3.1), a message gone between the
// search and the fetch, and a changed UIDVALIDITY with nothing unseen (section 2.3.1.1).
import { dovecotMissing } from "@agentsvc/testkit";
import { describe, expect, it } from "vitest";
import type { Handled } from "../src/connection.js";
import { mail, readerOn } from "./imap-reader-rig.js";
import { useDovecot } from "./rig.js";

const dovecot = useDovecot();

describe.skipIf(dovecotMissing !== undefined)("the IMAP reader while the mailbox changes", () => {
  it("after older mail was deleted, polls read, mark seen and look up messages by UID, not by position", async () => {
    const { box, poll, reader } = await readerOn(dovecot);
    const gone = [await box.append(mail("g1"), true), await box.append(mail("g2"), true)];
    const a = await box.append(mail("a"));
    const b = await box.append(mail("b"));
    await box.observer.messageDelete(gone.join(","), { uid: true });
    // No cursor: every unseen message, by UID.
    const first = await poll(undefined);
    expect(first.handled).toEqual([a, b]);
    expect([await box.seen(a), await box.seen(b)]).toEqual([true, true]);
    // From a cursor: only what follows it.
    const c = await box.append(mail("c"));
    const cursor = first.saved.at(-1);
    expect(cursor?.lastUid).toBe(b);
    const second = await poll(cursor);
    expect(second.handled).toEqual([c]);
    expect(await box.seen(c)).toBe(true);
    expect(await reader.lookup("<b@example.test>")).toEqual({
      from: "ann.b@example.test",
      subject: "Subject b",
    });
  });

  it("a message deleted while the poll reads is passed over: the poll goes on and the cursor moves past it", async () => {
    const { box, poll } = await readerOn(dovecot);
    const a = await box.append(mail("a"));
    const b = await box.append(mail("b"));
    const c = await box.append(mail("c"));
    const { handled, saved, count } = await poll(undefined, async (uid): Promise<Handled> => {
      // Another client deletes b while a is being recorded.
      if (uid === a) await box.observer.messageDelete(String(b), { uid: true });
      return "recorded";
    });
    expect(handled).toEqual([a, c]);
    expect(count).toBe(2);
    expect(saved.at(-1)?.lastUid).toBe(c);
  });

  it("a changed UIDVALIDITY with nothing unseen moves the cursor to the new validity at the newest message, warned once", async () => {
    const { box, poll, logs } = await readerOn(dovecot);
    const a = await box.append(mail("a"), true);
    const moved = await poll({ uidValidity: "1", lastUid: 7 });
    expect(moved.handled).toEqual([]);
    expect(moved.saved).toHaveLength(1);
    expect(moved.saved[0]?.lastUid).toBe(a);
    expect(moved.saved[0]?.uidValidity).not.toBe("1");
    await poll(moved.saved[0]);
    expect(logs.filter((l) => String(l.msg).startsWith("IMAP UIDVALIDITY changed"))).toHaveLength(1);
  });

  it("a mailbox message without a Subject is looked up with an empty subject", async () => {
    const { box, reader } = await readerOn(dovecot);
    await box.observer.append(
      "INBOX",
      "From: Ann <ann@example.test>\r\nTo: bot@example.test\r\nMessage-ID: <nosubject@example.test>\r\n\r\nhi\r\n",
      [],
    );
    expect(await reader.lookup("<nosubject@example.test>")).toEqual({
      from: "ann@example.test",
      subject: "",
    });
  });
});
