// How long an unchanged draft is kept shown (stream.ts): Telegram drops a draft after about 30 s
// (https://core.telegram.org/bots/api#sendmessagedraft), so the same draft is sent again every
// draftRefreshMs for at most 10 minutes after its last change, and never once the reply's message
// went out or the gateway stopped. The Bot API calls are recorded here, on a fake clock, so a
// refresh can be held in flight and ten minutes pass in an instant; the HTTP path of the same
// calls is tested against the Telegram fake in stream.test.ts and stream-paths.test.ts.
import type { SendOptions } from "@agentsvc/adapter-kit";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type TelegramStreamApi, TelegramStreams } from "../src/stream.js";

const REFRESH_MS = 20_000;
const CHAT = "101";
const options: SendOptions = { idempotencyKey: "k", attempt: 1 };

interface Recorded {
  drafts: { draftId: number; html: string; at: number }[];
  sends: string[];
  /** Answers the next draft call only when the test says so. */
  holdNextDraft(): () => void;
}

function recordingApi(): TelegramStreamApi & Recorded {
  const drafts: Recorded["drafts"] = [];
  const sends: string[] = [];
  let held: Promise<void> | undefined;
  return {
    drafts,
    sends,
    holdNextDraft() {
      let release!: () => void;
      held = new Promise((resolve) => {
        release = resolve;
      });
      return release;
    },
    async draft(_thread, draftId, html) {
      drafts.push({ draftId, html, at: Date.now() });
      const wait = held;
      held = undefined;
      if (wait) await wait;
    },
    async send(_thread, html) {
      sends.push(html);
      return { messageId: String(sends.length) };
    },
    async edit() {},
  };
}

let streams: TelegramStreams | undefined;

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  streams?.close();
  streams = undefined;
  vi.useRealTimers();
});

function open(api: TelegramStreamApi): TelegramStreams {
  streams = new TelegramStreams(
    api,
    () => 3_000,
    () => REFRESH_MS,
  );
  return streams;
}

describe("an unchanged draft", () => {
  it("is sent again every 20 s until 10 minutes after its last change (the refresh due at 10:00 still goes), then left to vanish", async () => {
    const api = recordingApi();
    const stream = open(api).open(CHAT, {});
    const ids = await stream.update("Checking the logs…");
    expect(ids?.draftId).toBeTypeOf("number");
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    // 30 refreshes in ten minutes, at 20 s, 40 s, ... 600 s.
    expect(api.drafts).toHaveLength(31);
    await vi.advanceTimersByTimeAsync(REFRESH_MS);
    // The one armed at exactly 10:00 goes; nothing after it.
    expect(api.drafts).toHaveLength(32);
    await vi.advanceTimersByTimeAsync(10 * REFRESH_MS);
    expect(api.drafts).toHaveLength(32);
    expect(new Set(api.drafts.map((d) => d.draftId))).toEqual(new Set([ids?.draftId]));
  });

  it("counts its 10 minutes from its last change: a new text starts them again", async () => {
    const api = recordingApi();
    const stream = open(api).open(CHAT, {});
    await stream.update("one");
    await vi.advanceTimersByTimeAsync(9 * 60_000);
    await stream.update("one two");
    await vi.advanceTimersByTimeAsync(9 * 60_000);
    const latest = api.drafts.filter((d) => d.html === "one two");
    // Still refreshed 9 minutes after the change, though 18 minutes after the first text.
    expect(latest.at(-1)?.at).toBeGreaterThanOrEqual(Date.now() - REFRESH_MS);
    // The old text is never sent after the new one.
    const firstNew = api.drafts.findIndex((d) => d.html === "one two");
    expect(api.drafts.slice(firstNew).every((d) => d.html === "one two")).toBe(true);
  });

  it("is never shown again after the reply's message, even when a refresh was in flight as the message went", async () => {
    const api = recordingApi();
    const s = open(api);
    const ids = await s.open(CHAT, {}).update("Checking the logs…");
    const release = api.holdNextDraft();
    await vi.advanceTimersByTimeAsync(REFRESH_MS);
    expect(api.drafts).toHaveLength(2); // the refresh, not yet answered
    const finished = s.finish(CHAT, ids ?? {}, "All clear.", options);
    // The message waits for the refresh in flight: a draft landing after it would show again.
    await vi.advanceTimersByTimeAsync(0);
    expect(api.sends).toEqual([]);
    release();
    await finished;
    expect(api.sends).toEqual(["All clear."]);
    await vi.advanceTimersByTimeAsync(5 * REFRESH_MS);
    expect(api.drafts).toHaveLength(2);
  });

  it("is not refreshed after the gateway stops", async () => {
    const api = recordingApi();
    const s = open(api);
    await s.open(CHAT, {}).update("Checking the logs…");
    await s.open("102", {}).update("Reading the file…");
    await vi.advanceTimersByTimeAsync(REFRESH_MS);
    expect(api.drafts).toHaveLength(4);
    s.close();
    await vi.advanceTimersByTimeAsync(5 * REFRESH_MS);
    expect(api.drafts).toHaveLength(4);
  });

  it("whose first send failed is still never shown after the reply: its id reaches the session with the first draft that lands", async () => {
    const api = recordingApi();
    const draft = api.draft.bind(api);
    let failures = 1;
    api.draft = async (...args) => {
      if (failures-- > 0) throw new Error("network down");
      await draft(...args);
    };
    const s = open(api);
    const stream = s.open(CHAT, {});
    // The session swallows a failed preview update and goes on with the next one.
    await expect(stream.update("one")).rejects.toThrow("network down");
    const ids = await stream.update("one two");
    expect(ids?.draftId).toBeTypeOf("number");
    expect(await stream.update("one two three")).toBeUndefined();
    await s.finish(CHAT, ids ?? {}, "All clear.", options);
    const shown = api.drafts.length;
    await vi.advanceTimersByTimeAsync(5 * REFRESH_MS);
    expect(api.drafts).toHaveLength(shown);
  });

  it("stops being refreshed when a refresh fails, until the next real update", async () => {
    const api = recordingApi();
    let fail = false;
    const draft = api.draft.bind(api);
    api.draft = async (...args) => {
      await draft(...args);
      if (fail) throw new Error("network down");
    };
    const stream = open(api).open(CHAT, {});
    await stream.update("one");
    fail = true;
    await vi.advanceTimersByTimeAsync(REFRESH_MS);
    expect(api.drafts).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(5 * REFRESH_MS);
    expect(api.drafts).toHaveLength(2);
    fail = false;
    await stream.update("one two");
    await vi.advanceTimersByTimeAsync(REFRESH_MS);
    expect(api.drafts.map((d) => d.html)).toEqual(["one", "one", "one two", "one two"]);
  });
});
