// The email gateway step by step: its poll task run by hand against the test Dovecot (one round per
// call, the delay it asks for read back) and its replies caught by the SMTP sink, with a hand-built
// session context (what `deliver` got, the gateway's own state, the requests it may tag). The
// threading headers follow RFC 5322 section 3.6.4 (https://www.rfc-editor.org/rfc/rfc5322#section-3.6.4):
// a reply's In-Reply-To is its parent's Message-ID, References the parent's References plus it.
import { isGatewaySendError } from "@agentsvc/adapter-kit";
import { dovecotMissing } from "@agentsvc/testkit";
import { describe, expect, it } from "vitest";
import { BOT, DMARC_PASS } from "./harness.js";
import { fromAnn, opts, recipient, request, useSteppedGateway } from "./stepped-gateway.js";

const { dovecot, started } = useSteppedGateway();

describe.skipIf(dovecotMissing !== undefined)("the email gateway step by step", () => {
  it("delivers a new mail as its own conversation, with the author, where replies go and the threading ids", async () => {
    const { box, delivered, state, counts, round } = await started();
    await box.append({
      messageId: "<p1@example.test>",
      from: "Ann Example <Ann@Example.test>",
      subject: "Plans",
      text: "what is planned?",
      headers: { "Reply-To": "Team <team@example.test>" },
    });
    expect(await round()).toBe(100);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toEqual({
      dedupKey: "<p1@example.test>",
      thread: "<p1@example.test>",
      text: "what is planned?",
      author: { id: "ann@example.test", displayName: "Ann Example" },
      chat: { type: "direct", id: "ann@example.test" },
      meta: {
        from: "ann@example.test",
        replyTo: "team@example.test",
        subject: "Plans",
        messageId: "<p1@example.test>",
        references: ["<p1@example.test>"],
      },
    });
    expect(state.get("msg:<p1@example.test>")).toBe("<p1@example.test>");
    expect(state.get("thread:<p1@example.test>")).toEqual({
      to: "team@example.test",
      subject: "Plans",
      inReplyTo: "<p1@example.test>",
      references: ["<p1@example.test>"],
    });
    // The cursor's state key is kept across upgrades: a new key would read the mailbox's unseen mail again.
    expect(state.get("cursor")).toMatchObject({ lastUid: expect.any(Number) });
    expect(counts.heard).toBe(1);
    expect(counts.succeeded).toBe(1);
    expect(counts.reconnected).toBe(0);
  });

  it("a follow-up to any mail of a known chain joins its conversation, found by In-Reply-To or the newest known reference", async () => {
    const { box, delivered, round } = await started();
    await box.append(fromAnn("r1", "Q", "one"));
    await round();
    // In-Reply-To names a mail the gateway never saw; a reference names the root.
    await box.append(
      fromAnn("r2", "Re: Q", "two", {
        inReplyTo: "<unknown@example.test>",
        references: ["<elsewhere@example.test>", "<r1@example.test>", "<unknown@example.test>"],
      }),
    );
    // A reply to the second mail only.
    await box.append(fromAnn("r3", "Re: Q", "three", { inReplyTo: "<r2@example.test>" }));
    await round();
    expect(delivered.map((d) => [d.text, d.thread])).toEqual([
      ["one", "<r1@example.test>"],
      ["two", "<r1@example.test>"],
      ["three", "<r1@example.test>"],
    ]);
    // Unknown chain: the root of its References names the conversation, else In-Reply-To.
    await box.append({
      messageId: "<s2@example.test>",
      from: "bob@example.test",
      subject: "Re: old",
      text: "four",
      inReplyTo: "<s1@example.test>",
      references: ["<s0@example.test>", "<s1@example.test>"],
    });
    await box.append({
      messageId: "<t2@example.test>",
      from: "bob@example.test",
      subject: "Re: old",
      text: "five",
      inReplyTo: "<t1@example.test>",
    });
    await round();
    expect(delivered.slice(3).map((d) => [d.text, d.thread])).toEqual([
      ["four", "<s0@example.test>"],
      ["five", "<t1@example.test>"],
    ]);
    expect(delivered[3]?.meta?.references).toEqual([
      "<s0@example.test>",
      "<s1@example.test>",
      "<s2@example.test>",
    ]);
    // Two known conversations referenced: the newest reference (last in References) names it.
    await box.append(
      fromAnn("u1", "Re: both", "six", { references: ["<s2@example.test>", "<r3@example.test>"] }),
    );
    await round();
    expect(delivered[5]).toMatchObject({ text: "six", thread: "<r1@example.test>" });
  });

  it("a mail without a Message-ID gets a stable id of its UID and bytes, which is its conversation", async () => {
    const { box, delivered, round } = await started();
    const raw = "From: ann@example.test\r\nTo: bot@example.test\r\nSubject: no id\r\n\r\nhello\r\n";
    const appended = await box.observer.append("INBOX", raw, []);
    await round();
    const uid = appended ? appended.uid : 0;
    expect(delivered[0]?.dedupKey).toMatch(new RegExp(`^<uid-${uid}-[0-9a-f]{16}@imap>$`));
    expect(delivered[0]?.thread).toBe(delivered[0]?.dedupKey);
  });

  it("a mail with no text and no part is left unread with a logged reason; an ignored sender is left unread too", async () => {
    const { box, delivered, lines, round } = await started();
    const empty = await box.append(fromAnn("e1", "x", ""));
    const auto = await box.append(
      fromAnn("e2", "Out of office", "away", { headers: { "Auto-Submitted": "auto-replied" } }),
    );
    await round();
    expect(delivered).toEqual([]);
    expect(await box.seen(empty)).toBe(false);
    expect(await box.seen(auto)).toBe(false);
    const ignored = lines.filter((l) => l.msg === "mail ignored").map((l) => l.reason);
    expect(ignored).toEqual(["no text", "Auto-Submitted: auto-replied"]);
  });

  it("replies as Re: of the mail, threaded, from the bot, with one Message-ID per piece that a retry repeats", async () => {
    const { box, gw, delivered, state, round } = await started();
    await box.append({
      messageId: "<m1@example.test>",
      from: "Ann <ann@example.test>",
      subject: "Fwd: Re: Plans",
      text: "hi",
    });
    await round();
    const meta = delivered[0]?.meta;
    const thread = "<m1@example.test>";
    const first = await gw.send(thread, "the **answer**", opts("k1", { meta }));
    const retry = await gw.send(thread, "the **answer**", opts("k1", { meta, attempt: 2 }));
    const next = await gw.send(thread, "more", opts("k2", { meta }));
    const [a, b, c] = box.sink.mails;
    expect(a?.subject).toBe("Re: Plans");
    expect(a?.from?.value[0]?.address).toBe(BOT);
    expect(recipient(a)).toBe("ann@example.test");
    expect(a?.inReplyTo).toBe(thread);
    expect(a?.references).toBe(thread);
    expect(a?.text?.trim()).toBe("the **answer**");
    expect(a?.html).toContain("<strong>answer</strong>");
    expect(first.messageId).toMatch(/^<[0-9a-f]{32}\.agentsvc@example\.test>$/);
    expect(a?.messageId).toBe(first.messageId);
    expect(b?.messageId).toBe(first.messageId);
    expect(retry.messageId).toBe(first.messageId);
    expect(next.messageId).not.toBe(first.messageId);
    expect(c?.messageId).toBe(next.messageId);
    expect(state.get(`msg:${first.messageId}`)).toBe(thread);
    // A reply to the bot's mail, quoting only its id, is the same conversation.
    await box.append(
      fromAnn("m2", "Re: Plans", "thanks", {
        inReplyTo: first.messageId as string,
        references: [first.messageId as string],
      }),
    );
    await round();
    expect(delivered[1]?.thread).toBe(thread);
  });

  it("without the run's origin a reply goes where the gateway kept the conversation, a bare address gets a new mail, a mailbox root is looked up", async () => {
    const { box, gw, round } = await started();
    // A root mail the gateway never read (read before it started): found in the mailbox by its Message-ID.
    await box.append(
      { messageId: "<old@example.test>", from: "Dan <DAN@example.test>", subject: "Old topic", text: "x" },
      true,
    );
    const k1 = await box.append(fromAnn("k1", "Kept", "hi"));
    await round();
    // What the gateway kept answers even once the mail is gone from the mailbox (no look-up needed).
    await box.observer.messageDelete(String(k1), { uid: true });
    await gw.send("<k1@example.test>", "kept", opts("a"));
    await gw.send("carol@example.test", "new", opts("b"));
    await gw.send("<old@example.test>", "looked up", opts("c"));
    const [kept, bare, root] = box.sink.mails;
    expect([kept?.subject, kept?.inReplyTo]).toEqual(["Re: Kept", "<k1@example.test>"]);
    expect(recipient(kept)).toBe("ann@example.test");
    expect(bare?.subject).toBe("Message from your agent");
    expect(recipient(bare)).toBe("carol@example.test");
    expect(bare?.inReplyTo).toBeUndefined();
    expect(bare?.references).toBeUndefined();
    expect(root?.subject).toBe("Re: Old topic");
    expect(recipient(root)).toBe("dan@example.test");
    expect(root?.inReplyTo).toBe("<old@example.test>");
    expect(root?.references).toBe("<old@example.test>");
    const err = await gw.send("<nowhere@example.test>", "lost", opts("d")).catch((e: unknown) => e);
    expect(isGatewaySendError(err) && err.permanent).toBe(true);
    expect((err as Error).message).toBe("email: no recipient known for thread <nowhere@example.test>");
    // A thread that is neither a Message-ID nor an address is no recipient either.
    const plain = await gw.send("no-address", "lost", opts("e")).catch((e: unknown) => e);
    expect((plain as Error).message).toBe("email: no recipient known for thread no-address");
  });

  it("a run's origin answers its Reply-To, and without one (recorded before it was kept) the sender", async () => {
    const { box, gw } = await started();
    await gw.send(
      "<o0@example.test>",
      "hi",
      opts("o0", { meta: { from: "ann@example.test", replyTo: "team@example.test", subject: "S" } }),
    );
    expect(recipient(box.sink.mails.shift())).toBe("team@example.test");
    await gw.send("<o1@example.test>", "hi", opts("o", { meta: { from: "ann@example.test", subject: "S" } }));
    const [mail] = box.sink.mails;
    expect(recipient(mail)).toBe("ann@example.test");
    expect(mail?.subject).toBe("Re: S");
    expect(mail?.inReplyTo).toBeUndefined();
    // An origin that kept no subject (nothing to answer as Re:) gets the plain subject.
    await gw.send("<o2@example.test>", "hi", opts("o2", { meta: { from: "ann@example.test" } }));
    expect(box.sink.mails[1]?.subject).toBe("Message from your agent");
  });

  it("an approval mail carries its request in the subject; a request of no record is not tagged", async () => {
    const { box, gw, state, interactions } = await started();
    interactions.set("req_1", request("req_1", "carol@example.test"));
    await gw.send("carol@example.test", "May I?", opts("r1", { requestId: "req_1" }));
    await gw.send(
      "<x@example.test>",
      "May I?",
      opts("r2", { requestId: "req_1", meta: { from: "ann@example.test", subject: "Plans" } }),
    );
    await gw.send("carol@example.test", "text", opts("r3", { requestId: "req_unknown" }));
    expect(box.sink.mails.map((m) => m.subject)).toEqual([
      "Approval needed [agentsvc:req_1]",
      "Re: Plans [agentsvc:req_1]",
      "Message from your agent",
    ]);
    expect(state.get("request:carol@example.test")).toBe("req_1");
    expect(state.has("request:<x@example.test>")).toBe(true);
  });

  it("a reply to an approval mail decides only when a trusted server authenticated the sender; else it is left unread", async () => {
    const { box, gw, delivered, lines, interactions, round } = await started();
    await box.append(fromAnn("d1", "Plans", "go"));
    await round();
    const thread = "<d1@example.test>";
    interactions.set("req_d", request("req_d", thread));
    const sent = await gw.send(thread, "May I?", opts("q", { requestId: "req_d", meta: delivered[0]?.meta }));
    const forged = await box.append(
      fromAnn("d2", "Re: Plans", "Approve, go ahead", { inReplyTo: sent.messageId as string }),
    );
    await round();
    expect(delivered).toHaveLength(1);
    expect(await box.seen(forged)).toBe(false);
    expect(lines.find((l) => String(l.msg).startsWith("decision by mail not applied"))).toMatchObject({
      requestId: "req_d",
      from: "ann@example.test",
    });
    // Without the tag, by the thread's open request; the first line decides by prefix.
    await box.append(
      fromAnn("d3", "Re: Plans", "Approve, go ahead", {
        inReplyTo: sent.messageId as string,
        headers: DMARC_PASS,
      }),
    );
    await round();
    expect(delivered[1]).toMatchObject({ thread, text: "approve" });
    // Text that is not a decision reaches the agent unchanged, with no authentication needed.
    await box.append(fromAnn("d4", "Re: Plans [agentsvc:req_d]", "What file is it?"));
    await round();
    expect(delivered[2]).toMatchObject({ thread, text: "What file is it?" });
    // Once decided, the thread's request no longer makes a reply a decision: it reaches the agent as written.
    interactions.set("req_d", request("req_d", thread, { status: "decided" }));
    await box.append(
      fromAnn("d5", "Re: Plans", "Approve, go ahead", { inReplyTo: sent.messageId as string }),
    );
    await round();
    expect(delivered[3]).toMatchObject({ thread, text: "Approve, go ahead" });
  });

  it("a request tag decides the conversation only for this gateway's known requests; a decided request is no longer a decision", async () => {
    const { box, delivered, interactions, round } = await started();
    interactions.set("req_other", request("req_other", "<elsewhere@example.test>", { gateway: "slack" }));
    interactions.set("req_done", request("req_done", "<done@example.test>", { status: "decided" }));
    await box.append(fromAnn("g1", "Re: x [agentsvc:req_other]", "approve", { headers: DMARC_PASS }));
    await box.append(fromAnn("g2", "Re: x [agentsvc:req_done]", "Approve, go ahead"));
    await box.append(fromAnn("g3", "Re: x [agentsvc:req_nobody]", "approve"));
    // An open request of ours by its tag: "approve" is a decision, refused here (no authenticated sender).
    interactions.set("req_open", request("req_open", "<open@example.test>"));
    const unauthenticated = await box.append(fromAnn("g4", "Re: x [agentsvc:req_open]", "approve"));
    await round();
    expect(delivered.map((d) => [d.thread, d.text])).toEqual([
      ["<g1@example.test>", "approve"],
      ["<done@example.test>", "Approve, go ahead"],
      ["<g3@example.test>", "approve"],
    ]);
    expect(await box.seen(unauthenticated)).toBe(false);
  });

  it("a schedule's mail is a new message with its own subject to the conversation's address", async () => {
    const { box, gw, round } = await started();
    await box.append(fromAnn("c1", "Old", "hi"));
    await round();
    const scheduled = (subject: string) => ({ meta: { scheduled: { subject } } });
    await gw.send("<c1@example.test>", "weekly", opts("s", scheduled("  Weekly report ")));
    await gw.send("dan@example.test", "blank", opts("t", scheduled("  ")));
    const [composed, blank] = box.sink.mails;
    expect(composed?.subject).toBe("Weekly report");
    expect(recipient(composed)).toBe("ann@example.test");
    expect(composed?.inReplyTo).toBeUndefined();
    expect(composed?.references).toBeUndefined();
    expect(blank?.subject).toBe("Message from your agent");
  });

  it("a file goes as an attachment of a threaded reply, its caption or its note as the body", async () => {
    const { box, gw } = await started();
    const meta = { from: "ann@example.test", subject: "Files", messageId: "<f1@example.test>" };
    const file = (caption?: string) => ({
      blob: "0".repeat(64),
      name: "r.txt",
      contentType: "text/plain",
      size: 5,
      ...(caption ? { caption } : {}),
      bytes: async () => Buffer.from("hello"),
    });
    await gw.sendFile("<f1@example.test>", file("the report"), opts("f1", { meta }));
    await gw.sendFile("<f1@example.test>", file(), opts("f2", { meta }));
    const [captioned, noted] = box.sink.mails;
    expect(captioned?.subject).toBe("Re: Files");
    expect(captioned?.inReplyTo).toBe("<f1@example.test>");
    expect(captioned?.text?.trim()).toBe("the report");
    expect(captioned?.attachments.map((a) => [a.filename, a.contentType, a.content.toString()])).toEqual([
      ["r.txt", "text/plain", "hello"],
    ]);
    expect(noted?.text?.trim()).toBe("📎 r.txt (5 B)");
  });

  it("a refused IMAP login stops polling and reports the IMAP password variable", async () => {
    const { rejected, round } = await started({}, { IMAP_PASS: "wrong" });
    expect(await round()).toBeNull();
    expect(rejected.map((r) => r.envVar)).toEqual(["IMAP_PASS"]);
    expect(rejected[0]?.detail).toContain("IMAP login failed");
  });

  it("an IMAP outage is logged and retried with growing delays; the first poll that works again says so once", async () => {
    const server = await dovecot.started();
    // The gateway has not connected yet (an open IMAP session outlives the server's stop).
    const { box, delivered, lines, counts, round } = await started();
    await server.stop();
    const failed = () => lines.filter((l) => String(l.msg).startsWith("IMAP poll failed"));
    const delays: (number | null)[] = [];
    try {
      delays.push(await round(), await round());
      expect(failed().map((l) => l.attempt)).toEqual([1, 2]);
      const [first, second] = delays.slice(-2) as number[];
      expect(failed().map((l) => l.retryInMs)).toEqual([first, second]);
      expect(first).toBeGreaterThanOrEqual(100);
      expect(second).toBeGreaterThan(first as number);
      expect(failed()[0]?.level).toBe(50);
    } finally {
      await server.start();
    }
    await box.reconnect();
    await box.append(fromAnn("back", "x", "back"));
    expect(await round()).toBe(100);
    expect(await round()).toBe(100);
    expect(delivered.map((d) => d.text)).toEqual(["back"]);
    expect(lines.filter((l) => l.msg === "IMAP poll works again")).toHaveLength(1);
    expect(counts.reconnected).toBe(1);
  });

  it("after stop the poll task ends and reads nothing", async () => {
    const { box, gw, delivered, tasks, round } = await started();
    await gw.stop();
    expect(tasks.has("poll")).toBe(false);
    await box.append(fromAnn("late", "x", "late"));
    expect(await round()).toBeNull();
    expect(delivered).toEqual([]);
  });
});
