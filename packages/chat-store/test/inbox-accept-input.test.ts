// What inbox.accept refuses before anything is written (inbox.ts): an empty id names its field and
// code, a text that is not a string and an origin or attachments that are not JSON are refused, and
// a refused accept leaves the inbox empty. On SQLite (the checks run before either dialect's write).
import type { RunOrigin } from "@agentsvc/agent-core";
import { describe, expect, it } from "vitest";
import { openStore } from "./helpers.js";

const origin: RunOrigin = { gateway: "g", thread: "t", meta: {} };
const good = { gateway: "g", dedupKey: "k1", thread: "t", text: "hi", origin };

describe("inbox.accept's input", () => {
  it("an empty gateway, dedupKey or thread is refused with that field's name and code; nothing is recorded", async () => {
    const db = openStore();
    for (const [field, code] of [
      ["gateway", "invalid_gateway"],
      ["dedupKey", "invalid_dedup_key"],
      ["thread", "invalid_thread"],
    ] as const) {
      const refused = await db.inbox.accept({ ...good, [field]: "" }).catch((e: unknown) => e);
      expect(refused).toMatchObject({ code, message: expect.stringMatching(new RegExp(`^${field}: `)) });
    }
    expect(await db.inbox.unfinished()).toEqual([]);
  });

  it("a text that is not a string, and an origin or attachments that are not JSON, are refused; nothing is recorded", async () => {
    const db = openStore();
    await expect(db.inbox.accept({ ...good, text: 42 as unknown as string })).rejects.toThrow(
      "this.t.inbox.accept: text must be a string",
    );
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(db.inbox.accept({ ...good, origin: cyclic as unknown as RunOrigin })).rejects.toThrow(
      /^origin: expected a JSON value/,
    );
    await expect(db.inbox.accept({ ...good, attachments: [cyclic as never] })).rejects.toThrow(
      /^attachments: expected a JSON value/,
    );
    expect(await db.inbox.unfinished()).toEqual([]);
  });

  it("a repeat of a recorded (gateway, dedupKey) is answered as a duplicate, not accepted", async () => {
    const db = openStore();
    expect(await db.inbox.accept(good)).toEqual({ accepted: true, id: expect.any(Number) });
    expect(await db.inbox.accept(good)).toEqual({ accepted: false, duplicate: true });
    expect((await db.inbox.unfinished()).map((r) => [r.status, r.text])).toEqual([["queued", "hi"]]);
  });
});
