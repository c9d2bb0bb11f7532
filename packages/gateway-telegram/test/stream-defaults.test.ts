// A streamed reply with the gateway's defaults, against the Telegram fake over HTTP: a group's preview
// is edited no sooner than 3 s after the previous edit (Telegram takes about 20 messages a minute
// into one group, https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this),
// and a private chat's draft (https://core.telegram.org/bots/api#sendmessagedraft) is sent as HTML
// into the forum topic it answers (message_thread_id), and sent again 20 s later while it stays the same
// (Telegram shows a draft about 30 s).
import { httpTransport } from "@agentsvc/adapter-kit";
import { eventually } from "@agentsvc/testkit";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { GROUP_EDIT_GAP_MS } from "../src/stream.js";
import { createRig, startRig, type TelegramRig } from "./rig.js";

let rig: TelegramRig;

beforeEach(async () => {
  rig = await startRig();
});

afterEach(async () => {
  await rig.stop();
  vi.useRealTimers();
});

it("edits a group's streamed preview no sooner than 3 s after the message before it, by default", async () => {
  // On a fake clock, the timers' and Date's both, moved by the test: on the wall clock the fake's
  // arrival times also hold each request's way there (in a starved run the send's took ~0.45 s
  // longer than the edit's), the send may start a while after its booking, and Node's timers count
  // from the loop's cached time, so a loaded run saw the calls start 2,899 ms apart.
  await rig.stop();
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
  rig = await createRig();
  await rig.gateway.start(rig.rec.context);
  const started: { method: string; at: number }[] = [];
  // Bot API calls go through the kit's transport: a spy that lets each through notes its start.
  const request = httpTransport.request.bind(httpTransport);
  const spy = vi.spyOn(httpTransport, "request").mockImplementation((input, o) => {
    const method = /\/([A-Za-z]+)$/.exec(String(input))?.[1] ?? "";
    if (method === "sendMessage" || method === "editMessageText") started.push({ method, at: Date.now() });
    return request(input, o);
  });
  try {
    const stream = rig.gateway.stream?.("-1001234567890", { meta: { chatType: "supergroup" } });
    const sentAt = Date.now();
    await stream?.update("Hello");
    const editing = stream?.update("Hello there");
    await vi.advanceTimersByTimeAsync(GROUP_EDIT_GAP_MS - 1);
    expect(started.map((c) => c.method)).toEqual(["sendMessage"]);
    await vi.advanceTimersByTimeAsync(1);
    await editing;
    expect(started).toEqual([
      { method: "sendMessage", at: sentAt },
      { method: "editMessageText", at: sentAt + GROUP_EDIT_GAP_MS },
    ]);
  } finally {
    spy.mockRestore();
  }
  expect(
    rig.fake.calls
      .filter((c) => c.method === "sendMessage" || c.method === "editMessageText")
      .map((c) => c.method),
  ).toEqual(["sendMessage", "editMessageText"]);
});

it("sends a private chat's draft as HTML into the topic it answers", async () => {
  const stream = rig.gateway.stream?.("101:5", { meta: { chatType: "private" } });
  await stream?.update("<b>Hello</b> &lt;there&gt;");
  const [draft] = rig.calls("sendMessageDraft");
  expect(draft?.params).toMatchObject({ chat_id: "101", message_thread_id: 5, parse_mode: "HTML" });
  expect(rig.fake.chat.drafts.map((d) => ({ text: d.text, threadId: d.threadId }))).toEqual([
    { text: "Hello <there>", threadId: 5 },
  ]);
});

/** Shows a draft in a private chat; returns the refresh it armed (20 s by default) and that timer. */
async function showDraft(text: string) {
  const timers = vi.spyOn(globalThis, "setTimeout");
  await rig.gateway.stream?.("101", { meta: { chatType: "private" } }).update(text);
  const at = timers.mock.calls.findIndex(([, ms]) => ms === 20_000);
  const refresh = timers.mock.calls[at]?.[0];
  const timer = timers.mock.results[at]?.value;
  timers.mockRestore();
  return { refresh, timer };
}

it("sends an unchanged private draft again 20 s after it was shown, by default", async () => {
  const { refresh, timer } = await showDraft("Working on it");
  expect(refresh).toBeTypeOf("function");
  // The refresh runs now rather than in 20 s; its own timer is dropped so it runs once.
  clearTimeout(timer);
  (refresh as () => void)();
  await eventually(() => rig.fake.chat.drafts.length === 2, "the draft sent again");
  expect(rig.fake.chat.drafts.map((d) => d.text)).toEqual(["Working on it", "Working on it"]);
});

it("cancels a shown draft's pending refresh when the gateway stops", async () => {
  const { timer } = await showDraft("Working on it");
  expect(timer).toBeDefined();
  const cleared = vi.spyOn(globalThis, "clearTimeout");
  await rig.gateway.stop();
  expect(cleared).toHaveBeenCalledWith(timer);
  cleared.mockRestore();
});
