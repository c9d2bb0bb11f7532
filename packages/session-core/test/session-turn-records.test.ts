// How a turn's end is recorded where it is easy to get wrong: no text or whitespace only, a store
// that cannot say whether a transaction is open, a failure reply the store refuses, and the end of a
// turn approved after a restart (a turn the restarted process knows only from the store).
import { describe, expect, it } from "vitest";
import { type Rig, tempDir, until, useRig } from "./session-harness.js";
import { acceptedId, refuseReplyRowOnce, refuseStarts } from "./turn-harness.js";

const openRig = useRig();
const T = "T";

/** Once everything ran: nothing was sent or queued for record `id`, and it is done. */
async function answeredWithNothing(r: Rig, id: number): Promise<void> {
  await r.session.idle();
  expect(r.gateway.sent).toEqual([]);
  expect(await r.db.outbox.list("mock", T)).toEqual([]);
  expect((await r.db.inbox.get(id))?.status).toBe("done");
}

/** Once everything ran: "hello" (record `id`) was answered once and its record is done. */
async function answeredHello(r: Rig, id: number): Promise<void> {
  await r.session.idle();
  expect(r.gateway.textsTo(T)).toEqual([expect.stringContaining('You said: "hello"')]);
  expect((await r.db.inbox.get(id))?.status).toBe("done");
}

describe("a turn's end", () => {
  it("with no text sends nothing, also on a platform that cuts replies into pieces itself", async () => {
    const r = await openRig({ script: [{ text: "" }] });
    // A platform's own chunker may hand back an empty text as one empty piece: none may be queued.
    Object.assign(r.gateway, { chunk: (formatted: string) => [formatted] });
    await answeredWithNothing(r, await acceptedId(r, T, "say nothing"));
  });

  it("with a reply of whitespace only sends nothing and ends its message done, also where replies stream", async () => {
    const r = await openRig({ gateway: { stream: {} }, script: [{ text: " \n\n " }] });
    await answeredWithNothing(r, await acceptedId(r, T, "say nothing much"));
  });

  it("on a store that cannot say whether a transaction is open is written as usual: one reply, the message done", async () => {
    const r = await openRig();
    // The testing memory store has no inTransaction either: the commit opens its own transaction.
    Object.assign(r.db, { inTransaction: undefined });
    await answeredHello(r, await acceptedId(r, T, "hello"));
  });

  it("of a turn that could not start, whose failure reply the store refuses, leaves its message to the next start, which answers it once", async () => {
    const dir = tempDir();
    const a = await openRig({ dir });
    refuseStarts(a);
    refuseReplyRowOnce(a, { anywhere: true });
    const id = await acceptedId(a, T, "hello");
    await until(
      () => a.logs.lines().some((l) => l.msg === "could not record the end of a failed turn"),
      "the failed record",
    );
    // The record and its reply are one write: neither was kept, so the message is not failed without a reply.
    expect((await a.db.inbox.get(id))?.status).toBe("running");
    await a.close();

    await answeredHello(await openRig({ dir }), id);
  });

  it("of a turn approved after a restart, when it cannot be saved, is the failure reply and the message failed", async () => {
    const dir = tempDir();
    const first = await openRig({ dir });
    const id = await acceptedId(first, T, "use delete_file report.txt");
    await until(() => first.gateway.decisionRequests.length === 1, "the request");
    const req = first.gateway.decisionRequests[0]!;
    await first.close();

    const r = await openRig({ dir });
    await until(
      () => r.session.snapshot("mock", T).pendingRequestId === req.requestId,
      "the recovered request",
    );
    refuseReplyRowOnce(r);
    expect(await r.gateway.decide(req.requestId, "approve")).toMatchObject({ ok: true });
    await until(() => r.gateway.textsTo(T).length === 1, "the failure reply", 5_000);
    await r.session.idle();
    expect(r.executed).toEqual(["use delete_file report.txt"]);
    expect(r.gateway.textsTo(T)).toEqual(["Sorry, I could not answer this message (persist_failed)."]);
    expect((await r.db.inbox.get(id))?.status).toBe("failed");
  });
});
