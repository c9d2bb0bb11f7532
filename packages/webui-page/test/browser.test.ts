// The page in real Chromium against a fake of the ChatUi API contract (test/fake-api). Each test
// takes the server URL from its fake, so the same steps can later run against the real server.
import { execFileSync } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error - plain ESM build script without type declarations
import { bundleClient } from "../scripts/bundle.mjs";
import type { PageEntry } from "../src/entry.js";
import type { ClientAssets } from "../src/render.js";
import { type FakeApi, type FakeOptions, startFakeApi } from "./fake-api/server.js";
import { launchBrowser, openPage, type Watched } from "./browser/harness.js";

const OUT = join(import.meta.dirname, "..", "test-output");
const ENTRY: PageEntry = {
  path: "/chat",
  title: "Helper Desk",
  subtitle: "Answers about cats",
  icon: { kind: "emoji", value: "🐱" },
  welcome: "Hello! Ask me about cats.",
  placeholder: "Ask about cats…",
  footer: "Replies may be wrong.",
};

let browser: Browser;
let assets: ClientAssets;
const fakes: FakeApi[] = [];
const pages: Watched[] = [];

async function fake(opts: Partial<FakeOptions> = {}): Promise<FakeApi> {
  const f = await startFakeApi({ entry: ENTRY, assets, ...opts });
  fakes.push(f);
  return f;
}

async function open(f: FakeApi, opts: Parameters<typeof openPage>[2] = {}): Promise<Watched> {
  const w = await openPage(browser, f.pageUrl, opts);
  pages.push(w);
  return w;
}

/** A stored conversation "early" (one question, then `answer`) the page opens as the last one. */
function storeEarly(f: FakeApi, answer: string): void {
  f.conversations.set("shared\u0000early", {
    owner: "shared",
    conversationId: "early",
    title: "early",
    updatedAt: Date.now(),
    messages: [
      { role: "user", content: "stored question" },
      { role: "assistant", content: answer },
    ],
  });
}

async function send(w: Watched, text: string): Promise<void> {
  await w.page.locator("#input").fill(text);
  await w.page.locator("#input").press("Enter");
}

const assistantText = (w: Watched) => w.page.locator(".msg.assistant .content").last();

beforeAll(async () => {
  assets = (await bundleClient()) as ClientAssets;
  browser = await launchBrowser();
  await mkdir(OUT, { recursive: true });
});

afterEach(async () => {
  // No test may trigger a CSP violation, a JS dialog or an uncaught error.
  const w = pages.splice(0);
  for (const p of w) {
    expect(p.cspErrors, "CSP violations").toEqual([]);
    expect(p.dialogs, "JS dialogs").toEqual([]);
    expect(p.pageErrors, "uncaught page errors").toEqual([]);
    await p.context.close();
  }
  for (const f of fakes.splice(0)) await f.close();
});

afterAll(async () => {
  await browser?.close();
});

/** Whether the newest message's end is in view at the transcript's bottom. */
const AT_BOTTOM = `(() => { const s = document.getElementById("transcript"); const m = [...document.querySelectorAll("#messages .msg")].at(-1); return !m || m.getBoundingClientRect().bottom - s.getBoundingClientRect().bottom < 48; })()`;
/** Scrolls the transcript to its top (it scrolls from its bottom, see page.css; scrollTop is clamped). */
/**
 * Init script: when the page sets its replay mark, records (synchronously, before any later build)
 * how many messages are built, whether they reach the transcript's top edge, and whether an
 * unbuilt placeholder group shows in the view.
 */
const BUILT_AT_MARK = `(() => {
  const mark = performance.mark.bind(performance);
  performance.mark = (name, options) => {
    if (name === "agentsvc:history-replayed") {
      const view = document.getElementById("transcript").getBoundingClientRect();
      const built = [...document.querySelectorAll("#messages .msg")];
      const empty = [...document.querySelectorAll("#messages .msg-group:empty")];
      window.__builtAtMark = {
        built: built.length,
        filled: built.length > 0 && built[0].getBoundingClientRect().top <= view.top,
        placeholderInView: empty.some((g) => { const r = g.getBoundingClientRect(); return r.bottom > view.top && r.top < view.bottom; }),
      };
    }
    return mark(name, options);
  };
})()`;
const TO_TOP = `(() => { const s = document.getElementById("transcript"); s.scrollTop = -s.scrollHeight; })()`;

describe("chat page in Chromium", () => {
  it("streams a reply after Enter, shows the model name and announces start and end", async () => {
    const f = await fake({ modelName: "demo-model-1" });
    const w = await open(f);
    await expect.poll(() => w.page.locator("#model").textContent()).toBe("demo-model-1");
    expect(await w.page.locator("#welcome").isVisible()).toBe(true);
    expect(await w.page.locator("#transcript").getAttribute("role")).toBe("log");
    await send(w, "hello there");
    await expect.poll(() => assistantText(w).textContent()).toBe("You said: hello there");
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Reply finished.");
    expect(await w.page.locator(".msg.user .bubble").textContent()).toBe("hello there");
    expect(await w.page.locator("#welcome").isVisible()).toBe(false);
    // With no conversation yet, the first turn goes to a server-minted id, never the shared "default"
    // (the store keys rows by id alone, so "default" may belong to someone else).
    const created = f.requests.findIndex((r) => r.route === "/conversations/create");
    const streamAt = f.requests.findIndex((r) => r.route === "/stream");
    expect(created).toBeGreaterThanOrEqual(0);
    expect(created).toBeLessThan(streamAt);
    const stream = f.requests[streamAt]!;
    expect((stream.body as { input: string }).input).toBe("hello there");
    expect((stream.body as { conversationId: string }).conversationId).not.toBe("default");
    await expect.poll(() => w.page.locator(".conv-open").first().textContent()).toBe("hello there");
  });

  it("Shift+Enter adds a newline, Enter sends, and nothing is sent while an IME is composing", async () => {
    const f = await fake();
    const w = await open(f);
    const input = w.page.locator("#input");
    await input.click();
    await input.pressSequentially("line one");
    await input.press("Shift+Enter");
    await input.pressSequentially("line two");
    expect(await input.inputValue()).toBe("line one\nline two");
    // A composition-time Enter (isComposing) must not send.
    await w.page.evaluate(`document.getElementById("input").dispatchEvent(
      new KeyboardEvent("keydown", { key: "Enter", isComposing: true, bubbles: true, cancelable: true }))`);
    expect(f.requests.filter((r) => r.route === "/stream")).toHaveLength(0);
    await input.press("Enter");
    // innerText on purpose: it shows the <br> the newline became.
    // biome-ignore lint/performance/useDomNodeTextContent: see above
    await expect.poll(() => assistantText(w).innerText()).toBe("You said: line one\nline two");
  });

  it("grows the composer to about six lines, then scrolls", async () => {
    const f = await fake();
    const w = await open(f);
    const input = w.page.locator("#input");
    const h1 = (await input.boundingBox())!.height;
    await input.fill("a\nb\nc");
    await input.dispatchEvent("input");
    const h3 = (await input.boundingBox())!.height;
    await input.fill(Array.from({ length: 20 }, (_, i) => `line ${i}`).join("\n"));
    await input.dispatchEvent("input");
    const h20 = (await input.boundingBox())!.height;
    expect(h3).toBeGreaterThan(h1);
    expect(h20).toBeGreaterThan(h3);
    const lineHeight = (h3 - h1) / 2;
    expect(h20).toBeLessThan(h1 + lineHeight * 6.5);
    expect(
      await w.page.evaluate(
        `(() => { const t = document.getElementById("input"); return t.scrollHeight > t.clientHeight; })()`,
      ),
    ).toBe(true);
  });

  it("shows reasoning in a collapsed Thinking strip and tool calls as collapsed chips", async () => {
    const f = await fake();
    const w = await open(f);
    await send(w, "think about cats");
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Reply finished.");
    const thinking = w.page.locator("details.thinking");
    expect(await thinking.getAttribute("open")).toBeNull();
    expect(await thinking.locator("summary").textContent()).toBe("Thinking");
    await thinking.locator("summary").click();
    // biome-ignore lint/performance/useDomNodeTextContent: rendered text is what a reader sees
    expect(await thinking.locator(".reasoning").innerText()).toBe("The user wants cats. I will look it up.");
    const chip = w.page.locator("details.tool");
    expect(await chip.count()).toBe(1);
    expect(await chip.getAttribute("open")).toBeNull();
    expect(await chip.locator(".tool-name").textContent()).toBe("lookup");
    await chip.locator("summary").click();
    expect(JSON.parse((await chip.locator(".tool-args").textContent())!)).toEqual({ q: "cats" });
    expect(await w.page.locator(".content strong").textContent()).toBe("great");
    expect(await w.page.locator(".content li").allTextContents()).toEqual(["purr", "nap"]);
    expect(await w.page.locator(".content pre code").textContent()).toBe("const snake_case = 1;");
  });

  it("hides the Thinking strip and tool chips when the flags are false", async () => {
    const f = await fake({ entry: { ...ENTRY, showReasoning: false, showToolCalls: false } });
    const w = await open(f);
    await send(w, "think about cats");
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Reply finished.");
    expect(await w.page.locator(".thinking").count()).toBe(0);
    expect(await w.page.locator(".tool").count()).toBe(0);
    expect(await w.page.locator(".content strong").textContent()).toBe("great");
  });

  it("turns Send into Steer during a reply and splices the message into the same turn", async () => {
    const f = await fake();
    const w = await open(f);
    await send(w, "slow please");
    await expect.poll(() => assistantText(w).textContent()).toContain("tick 2");
    expect(await w.page.locator("#send-btn").textContent()).toBe("Steer");
    await send(w, "go left");
    await expect
      .poll(() => assistantText(w).textContent(), { timeout: 8000 })
      .toContain("[steered: go left]");
    const steer = f.requests.find((r) => r.route === "/steer")!;
    const threadId = f.requests.find((r) => r.route === "/cancel")?.body;
    expect(threadId).toBeUndefined();
    expect((steer.body as { input: string }).input).toBe("go left");
    expect(await w.page.locator(".msg.user.steer .bubble").textContent()).toBe("Steergo left");
    expect(await w.page.locator(".msg.assistant").count()).toBe(1);
    await w.page.locator("#stop-btn").click();
    await expect.poll(() => w.page.locator("#send-btn").textContent()).toBe("Send");
  });

  it("Stop cancels on the server with the threadId, then aborts, keeping the streamed text", async () => {
    const f = await fake();
    const w = await open(f);
    await send(w, "slow please");
    await expect.poll(() => assistantText(w).textContent()).toContain("tick 3");
    await w.page.locator("#stop-btn").click();
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Reply stopped.");
    const cancel = f.requests.find((r) => r.route === "/cancel")!;
    const threadId = (cancel.body as { threadId: string }).threadId;
    expect(threadId).toMatch(/^[0-9a-f-]{36}$/);
    const closedAt = f.streamClosedAt.get(threadId);
    if (closedAt !== undefined) expect(closedAt).toBeGreaterThanOrEqual(cancel.at);
    const text = await assistantText(w).textContent();
    expect(text).toContain("tick 1 tick 2 tick 3");
    expect(text).not.toContain("tick 80");
    expect(await w.page.locator(".msg.assistant .note").last().textContent()).toBe("Stopped.");
    expect(await w.page.locator("#send-btn").textContent()).toBe("Send");
    expect(await w.page.locator("#stop-btn").isHidden()).toBe(true);
  });

  it.each([
    ["approve", "Approved.", ["I need to delete a file.", "Deleted /tmp/x."]],
    ["reject", "Rejected.", ["I need to delete a file.", "Okay, I did not delete it."]],
  ])("shows an approval card and continues the same bubble after %s", async (decision, label, finalText) => {
    const f = await fake();
    const w = await open(f);
    await send(w, "approve the deletion");
    const card = w.page.locator(".approval");
    await expect
      .poll(() => card.locator(".approval-title").textContent())
      .toBe("Approval needed: delete_file");
    expect(JSON.parse((await card.locator("pre").textContent())!)).toEqual({ path: "/tmp/x" });
    const pendingCall = f.requests.find((r) => r.route.startsWith("/pending"));
    expect(pendingCall).toBeDefined();
    await card.getByRole("button", { name: decision === "approve" ? "Approve" : "Reject" }).click();
    await expect.poll(() => assistantText(w).locator("p").allTextContents()).toEqual(finalText);
    expect(await card.textContent()).toBe(label);
    expect(await w.page.locator(".msg.assistant").count()).toBe(1);
    const resume = f.requests.find((r) => r.route === "/resume")!;
    expect((resume.body as { decision: string }).decision).toBe(decision);
  });

  it("restores a pending approval card after a reload", async () => {
    const f = await fake();
    const w = await open(f);
    await send(w, "approve it");
    await expect.poll(() => w.page.locator(".approval").count()).toBe(1);
    await w.page.reload();
    await expect
      .poll(() => w.page.locator(".approval-title").textContent())
      .toBe("Approval needed: delete_file");
    await w.page.getByRole("button", { name: "Approve", exact: true }).click();
    await expect.poll(() => w.page.locator(".approval").last().textContent()).toBe("Approved.");
  });

  it("reports a mid-run error and keeps the partial text", async () => {
    const f = await fake();
    const w = await open(f);
    await send(w, "fail now");
    await expect
      .poll(() => w.page.locator(".note.error-text").textContent())
      .toBe("The model could not answer; please try again.");
    expect(await assistantText(w).textContent()).toBe("Partial answer");
    expect(await w.page.locator("#status").textContent()).toBe("Reply failed.");
  });

  it("marks a reply a failure cut short when the conversation is reloaded", async () => {
    const f = await fake();
    const w = await open(f);
    await send(w, "fail now");
    await expect.poll(() => w.page.locator(".note.error-text").count()).toBe(1);
    await w.page.reload();
    await expect.poll(() => assistantText(w).textContent()).toBe("Partial answer");
    await expect
      .poll(() => w.page.locator(".note.error-text").textContent())
      .toBe("This reply was cut short by an error.");
  });

  it("says so under a reply cut at the model's length limit", async () => {
    const f = await fake();
    const w = await open(f);
    await send(w, "cut please");
    await expect
      .poll(() => w.page.locator(".note").last().textContent())
      .toBe("The reply was cut off at the model's length limit.");
    expect(await assistantText(w).textContent()).toBe("This answer stops in the mid");
    expect(await w.page.locator("#status").textContent()).toBe("Reply finished.");
  });

  it("says when to retry a rate-limited reply, in its own words, never the provider's text", async () => {
    const f = await fake();
    const w = await open(f);
    await send(w, "ratelimit now");
    await expect
      .poll(() => w.page.locator(".note.error-text").textContent())
      .toBe("The model is getting too many requests; try again in 7 s.");
    expect(await w.page.locator("#messages").textContent()).not.toContain("Rate limit reached");
  });

  it("New, rename and delete conversations; reload reopens the last one or falls back to the newest", async () => {
    const f = await fake();
    const w = await open(f);
    const titles = () => w.page.locator(".conv-open").allTextContents();
    await send(w, "first topic");
    await expect.poll(titles).toEqual(["first topic"]);
    await w.page.locator("#new-conv").click();
    await expect.poll(() => w.page.locator("#welcome").isVisible()).toBe(true);
    await send(w, "second topic");
    await expect.poll(titles).toEqual(["second topic", "first topic"]);
    expect(f.requests.filter((r) => r.route === "/conversations/delete")).toHaveLength(0);

    // Rename: the title is text, never markup.
    await w.page.getByRole("button", { name: "Rename second topic" }).click();
    await w.page.locator(".conv-edit").fill('<img src=x onerror="window.__pwned=9">Renamed');
    await w.page.locator(".conv-edit").press("Enter");
    await expect.poll(titles).toEqual(['<img src=x onerror="window.__pwned=9">Renamed', "first topic"]);
    expect(await w.page.locator(".conv-list img").count()).toBe(0);

    // Reload reopens the last-opened conversation.
    await w.page.getByRole("button", { name: "first topic", exact: true }).click();
    await expect.poll(() => w.page.locator(".msg.user .bubble").textContent()).toBe("first topic");
    await w.page.reload();
    await expect.poll(() => w.page.locator(".msg.user .bubble").textContent()).toBe("first topic");
    expect(await w.page.locator('.conv[aria-current="true"] .conv-open').textContent()).toBe("first topic");

    // Deleting the open conversation (two clicks) falls back to the newest remaining.
    await w.page.getByRole("button", { name: "Delete first topic" }).click();
    await w.page.getByRole("button", { name: "Confirm delete first topic" }).click();
    await expect.poll(titles).toEqual(['<img src=x onerror="window.__pwned=9">Renamed']);
    await expect.poll(() => w.page.locator(".msg.user .bubble").textContent()).toBe("second topic");
    await w.page.reload();
    await expect.poll(() => w.page.locator(".msg.user .bubble").textContent()).toBe("second topic");

    // A stored id that no longer exists also falls back to the newest.
    await w.page.evaluate(`localStorage.setItem("agentsvc:/chat:last", "gone")`);
    await w.page.reload();
    await expect.poll(() => w.page.locator(".msg.user .bubble").textContent()).toBe("second topic");
    expect(await w.page.evaluate("window.__pwned")).toBeUndefined();
  });

  it("replays history with reasoning, tool chips and markdown on load", async () => {
    const f = await fake();
    const w = await open(f);
    await send(w, "think again");
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Reply finished.");
    await w.page.reload();
    await expect.poll(() => w.page.locator(".content strong").textContent()).toBe("great");
    expect(await w.page.locator(".thinking").count()).toBe(1);
    expect(await w.page.locator(".tool .tool-name").textContent()).toBe("lookup");
    expect(await w.page.locator(".msg.user .bubble").textContent()).toBe("think again");
  });

  it("replays a long history: the newest messages at once, older groups when reached or in idle time, in order", async () => {
    const f = await fake();
    const messages = Array.from({ length: 200 }, (_, i) =>
      i % 2 === 0
        ? { role: "user" as const, content: `question ${i / 2}` }
        : {
            role: "assistant" as const,
            content:
              i === 1 ? '**answer** 0 <img src=x onerror="window.__pwned=1">' : `**answer** ${(i - 1) / 2}`,
          },
    );
    f.conversations.set("shared\u0000long", {
      owner: "shared",
      conversationId: "long",
      title: "long",
      updatedAt: Date.now(),
      messages,
    });
    const w = await open(f);
    await w.page.waitForFunction(() => performance.getEntriesByName("agentsvc:history-replayed").length > 0);
    // At the replay mark the newest messages are built, with markdown, at the bottom.
    expect(await w.page.locator("#messages .msg").count()).toBeGreaterThan(0);
    expect(await w.page.locator(".msg.assistant .content").last().locator("strong").textContent()).toBe(
      "answer",
    );
    const atBottom = AT_BOTTOM;
    expect(await w.page.evaluate(atBottom)).toBe(true);
    // Scrolling to the top builds the oldest group; idle time builds the rest.
    await w.page.evaluate(TO_TOP);
    const first = w.page.locator(".msg.assistant .content").first();
    await expect.poll(() => first.textContent()).toBe('answer 0 <img src=x onerror="window.__pwned=1">');
    expect(await first.locator("strong").count()).toBe(1);
    await expect.poll(() => w.page.locator("#messages .msg").count()).toBe(200);
    // Every reply is there once, in stored order, with its markdown.
    const replies = await w.page.locator(".msg.assistant .content").allTextContents();
    expect(replies.map((t) => t.replace(/ <img.*$/, ""))).toEqual(
      Array.from({ length: 100 }, (_, i) => `answer ${i}`),
    );
    expect(await w.page.locator(".msg.assistant .content strong").count()).toBe(100);
    expect(await w.page.locator(".msg.user .bubble").first().textContent()).toBe("question 0");
    // The page marks the moment the last deferred group was built, once.
    const completeMarks = `performance.getEntriesByName("agentsvc:history-complete").length`;
    await expect.poll(() => w.page.evaluate(completeMarks)).toBe(1);
    expect(await w.page.locator("#messages .msg-group:empty").count()).toBe(0);
    expect(await w.page.locator("#messages img").count()).toBe(0);
    expect(await w.page.evaluate("window.__pwned")).toBeUndefined();
  });

  it("builds about two screens of a long history before its first frame, enough to fill the view", async () => {
    const f = await fake();
    // Replies of 12 lines: 25 messages (the older groups' size) would be about ten screens.
    const reply = (n: number) =>
      Array.from({ length: 12 }, (_, line) => `answer ${n}, line ${line} of a long reply`).join("\n");
    const messages = Array.from({ length: 200 }, (_, i) =>
      i % 2 === 0
        ? { role: "user" as const, content: `question ${i / 2}` }
        : { role: "assistant" as const, content: reply((i - 1) / 2) },
    );
    f.conversations.set("shared\u0000long", {
      owner: "shared",
      conversationId: "long",
      title: "long",
      updatedAt: Date.now(),
      messages,
    });
    const w = await open(f);
    await w.context.addInitScript(BUILT_AT_MARK);
    await w.page.reload();
    await w.page.waitForFunction(() => performance.getEntriesByName("agentsvc:history-replayed").length > 0);
    const atMark = (await w.page.evaluate("window.__builtAtMark")) as {
      built: number;
      filled: boolean;
      placeholderInView: boolean;
    };
    // Fewer than a group of 25, yet the view shows messages from its top to its bottom.
    expect(atMark.built).toBeGreaterThan(2);
    expect(atMark.built).toBeLessThan(12);
    expect(atMark.filled).toBe(true);
    expect(atMark.placeholderInView).toBe(false);
    expect(await w.page.evaluate(AT_BOTTOM)).toBe(true);
    // The rest follows: every message once, in order.
    await expect.poll(() => w.page.locator("#messages .msg").count()).toBe(200);
    const users = await w.page.locator(".msg.user .bubble").allTextContents();
    expect(users).toEqual(Array.from({ length: 100 }, (_, i) => `question ${i}`));
  });

  it("Clear empties the conversation and shows the welcome again", async () => {
    const f = await fake();
    const w = await open(f);
    await send(w, "hello");
    await expect.poll(() => assistantText(w).textContent()).toBe("You said: hello");
    await w.page.locator("#menu-btn").click();
    await w.page.locator("#clear-btn").click();
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Conversation cleared.");
    expect(await w.page.locator(".msg").count()).toBe(0);
    expect(await w.page.locator("#welcome .welcome-text").textContent()).toBe("Hello! Ask me about cats.");
  });

  it("shows Compact only with the capability and reports the outcome in words", async () => {
    const without = await fake();
    const w1 = await open(without);
    await expect.poll(() => w1.page.locator("#model").textContent()).toBe("fake-model");
    await w1.page.locator("#menu-btn").click();
    expect(await w1.page.locator("#clear-btn").isVisible()).toBe(true);
    expect(await w1.page.locator("#compact-btn").isHidden()).toBe(true);

    const f = await fake({ compact: true });
    const w = await open(f);
    await w.page.locator("#menu-btn").click();
    await expect.poll(() => w.page.locator("#compact-btn").isVisible()).toBe(true);
    await w.page.locator("#compact-btn").click();
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Nothing to compact (0 messages).");
    for (const text of ["one", "two", "three"]) {
      await send(w, text);
      await expect.poll(() => assistantText(w).textContent()).toBe(`You said: ${text}`);
      await expect.poll(() => w.page.locator("#send-btn").textContent()).toBe("Send");
    }
    await w.page.locator("#menu-btn").click();
    await w.page.locator("#compact-btn").click();
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Compacted: 6 messages became 5.");
  });

  it("keeps Clear and Compact in a menu away from Send: keyboard reachable, closed by Escape and an outside click", async () => {
    const f = await fake({ compact: true });
    const w = await open(f);
    await send(w, "hello");
    await expect.poll(() => assistantText(w).textContent()).toBe("You said: hello");
    await expect.poll(() => w.page.locator("#send-btn").textContent()).toBe("Send");
    // The row of Send holds the menu button, the status line, Stop and Send; no Clear or Compact.
    const row = await w.page
      .locator("#send-btn")
      .evaluate((send) =>
        Array.from(send.parentElement!.children, (el) => (el as HTMLElement).id || el.className),
      );
    expect(row).toEqual(["menu", "status", "stop-btn", "send-btn"]);
    expect(await w.page.locator("#clear-btn").isVisible()).toBe(false);
    expect(await w.page.locator("#menu-btn").getAttribute("aria-haspopup")).toBe("menu");

    // Keyboard: Enter opens it on its first item, arrows move, Escape closes it back onto the button.
    await w.page.locator("#menu-btn").focus();
    await w.page.keyboard.press("Enter");
    expect(await w.page.locator("#menu-btn").getAttribute("aria-expanded")).toBe("true");
    const focused = () => w.page.evaluate(() => document.activeElement?.id);
    expect(await focused()).toBe("clear-btn");
    await w.page.keyboard.press("ArrowDown");
    expect(await focused()).toBe("compact-btn");
    await w.page.keyboard.press("ArrowDown");
    expect(await focused()).toBe("clear-btn");
    await w.page.keyboard.press("Escape");
    expect(await w.page.locator("#menu-list").isHidden()).toBe(true);
    expect(await w.page.locator("#menu-btn").getAttribute("aria-expanded")).toBe("false");
    expect(await focused()).toBe("menu-btn");

    // A click outside closes it; nothing was cleared meanwhile.
    await w.page.locator("#menu-btn").click();
    expect(await w.page.locator("#menu-list").isVisible()).toBe(true);
    await w.page.screenshot({ path: join(OUT, "menu-open.png") });
    await w.page.locator("#transcript").click({ position: { x: 5, y: 5 } });
    expect(await w.page.locator("#menu-list").isHidden()).toBe(true);
    expect(await w.page.locator(".msg").count()).toBe(2);

    // Chosen from the keyboard, Clear runs and the menu closes.
    await w.page.locator("#menu-btn").focus();
    await w.page.keyboard.press("ArrowDown");
    await w.page.keyboard.press("Enter");
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Conversation cleared.");
    expect(await w.page.locator("#menu-list").isHidden()).toBe(true);
    expect(await w.page.locator(".msg").count()).toBe(0);
  });

  it("replaces an emoji icon no installed font draws with the built-in icon, and keeps one a font draws", async () => {
    // The oracle is fontconfig, independent of the page's own canvas measurement. 🤖 U+1F916 is
    // missing on the test machine (Debian's headless Chromium has no emoji font); 🐱 U+1F431 is in
    // DejaVu Sans there. Each case follows what fontconfig says.
    const hasFont = (cp: number) =>
      execFileSync("fc-list", [`:charset=${cp.toString(16)}`, "family"], { encoding: "utf8" }).trim() !== "";
    for (const [emoji, cp] of [
      ["🤖", 0x1f916],
      ["🐱", 0x1f431],
    ] as const) {
      const f = await fake({ entry: { ...ENTRY, icon: { kind: "emoji", value: emoji } } });
      const w = await open(f);
      await expect.poll(() => w.page.locator("#model").textContent()).toBe("fake-model");
      const shown = await w.page.evaluate(() => ({
        header: document.querySelector(".brand-icon")?.tagName,
        welcome: document.querySelector(".welcome-icon")?.tagName,
        headerSrc: document.querySelector<HTMLImageElement>("img.brand-icon")?.src ?? null,
        favicon: document.querySelector<HTMLLinkElement>('link[rel="icon"]')?.href ?? "",
      }));
      if (hasFont(cp)) {
        expect(shown, emoji).toMatchObject({ header: "SPAN", welcome: "DIV", headerSrc: null });
        expect(decodeURIComponent(shown.favicon)).toContain(emoji);
      } else {
        expect(shown, emoji).toMatchObject({ header: "IMG", welcome: "IMG" });
        expect(shown.headerSrc).toMatch(/^data:image\/svg\+xml,/);
        expect(shown.favicon).toBe(shown.headerSrc);
        expect(decodeURIComponent(shown.favicon)).not.toContain(emoji);
        // The image is drawn (no broken image).
        expect(
          await w.page.locator("img.brand-icon").evaluate((i: HTMLImageElement) => i.naturalWidth),
        ).toBeGreaterThan(0);
        await w.page.screenshot({ path: join(OUT, "emoji-fallback.png") });
      }
    }
  });

  it("persists the theme through /preferences/set and keeps it after a reload", async () => {
    const f = await fake();
    const w = await open(f);
    await expect.poll(() => w.page.locator("#model").textContent()).toBe("fake-model");
    await w.page.locator("#theme-toggle").click();
    expect(await w.page.evaluate(`document.documentElement.dataset.theme`)).toBe("light");
    await w.page.locator("#theme-toggle").click();
    expect(await w.page.evaluate(`document.documentElement.dataset.theme`)).toBe("dark");
    expect(await w.page.locator("#theme-toggle").getAttribute("aria-label")).toBe("Theme: dark (change)");
    await expect.poll(() => f.preferences.get("shared")?.theme).toBe("dark");
    const bg = await w.page.evaluate(`getComputedStyle(document.body).backgroundColor`);
    expect(bg).toBe("rgb(13, 17, 23)");
    await w.page.reload();
    await expect.poll(() => w.page.evaluate(`document.documentElement.dataset.theme`)).toBe("dark");
  });

  it("keeps the theme locally when the preference request fails", async () => {
    const f = await fake({ failPreferenceWrites: true });
    const w = await open(f);
    await expect.poll(() => w.page.locator("#model").textContent()).toBe("fake-model");
    await w.page.locator("#theme-toggle").click();
    await expect.poll(() => f.requests.some((r) => r.route === "/preferences/set")).toBe(true);
    await w.page.reload();
    await expect.poll(() => w.page.evaluate(`document.documentElement.dataset.theme`)).toBe("light");
  });

  it("follows the system dark preference when no choice is stored", async () => {
    const f = await fake();
    const w = await open(f, { colorScheme: "dark" });
    expect(await w.page.evaluate(`document.documentElement.dataset.theme ?? null`)).toBeNull();
    expect(await w.page.evaluate(`getComputedStyle(document.body).backgroundColor`)).toBe("rgb(13, 17, 23)");
  });

  it("sends the first reads once, from <head>, with the stored key and the last-opened conversation", async () => {
    const f = await fake({ apiKey: "early-key" });
    storeEarly(f, "stored answer");
    const w = await open(f);
    await w.page.evaluate(`localStorage.setItem("agentsvc:/chat:apiKey", "early-key")`);
    await w.page.evaluate(`localStorage.setItem("agentsvc:/chat:last", "early")`);
    const from = f.requests.length;
    await w.page.reload();
    await expect.poll(() => assistantText(w).textContent()).toBe("stored answer");
    await w.page.waitForFunction(() => performance.getEntriesByName("agentsvc:history-replayed").length > 0);
    const reads = f.requests.slice(from).filter((r) => r.method === "GET");
    const count = (route: string) => reads.filter((r) => r.route === route).length;
    expect([count("/info"), count("/conversations"), count("/history")]).toEqual([1, 1, 1]);
    expect(reads.every((r) => r.apiKey === "early-key")).toBe(true);
    // The <head> script left its reads on window and the main script took them (one of each, above).
    expect(
      await w.page.evaluate(`"agentsvcEarlyReads" in window && window.agentsvcEarlyReads === undefined`),
    ).toBe(true);
  });

  it("renders nothing before the main script ran: with the first reads answered, the first frame shows the conversation", async () => {
    const f = await fake();
    storeEarly(f, "**stored** answer");
    const w = await open(f);
    await w.page.evaluate(`localStorage.setItem("agentsvc:/chat:last", "early")`);
    // What the transcript holds at the page's first frame (animation frames run only when it renders).
    await w.context.addInitScript(`requestAnimationFrame(() => {
      window.__firstFrame = {
        messages: document.querySelectorAll("#messages .msg").length,
        welcome: !document.getElementById("welcome")?.hidden,
      };
    })`);
    const hold = f.holdMainScript();
    await w.page.reload({ waitUntil: "commit" });
    // The page's first part is parsed, its <head> reads are answered, and then its main script comes.
    await w.page.evaluate(async () => {
      const done = () =>
        ["/info", "/conversations", "/history"].every((route) =>
          performance.getEntriesByType("resource").some((e) => new URL(e.name).pathname.endsWith(route)),
        );
      while (!document.getElementById("composer") || !done()) await new Promise((r) => setTimeout(r, 10));
      // And read: the bodies the <head> script parses (what the main script then adopts).
      const reads = (window as { agentsvcEarlyReads?: Record<string, unknown> }).agentsvcEarlyReads ?? {};
      await Promise.all(
        Object.values(reads).map((r) => (r && typeof r === "object" && "body" in r ? r.body : undefined)),
      );
    });
    hold.release();
    await w.page.waitForFunction(() => performance.getEntriesByName("agentsvc:history-replayed").length > 0);
    await w.page.waitForFunction(() => "__firstFrame" in window);
    expect(await w.page.evaluate("window.__firstFrame")).toEqual({ messages: 2, welcome: false });
    expect(await assistantText(w).locator("strong").textContent()).toBe("stored");
  });

  it("asks for the API key on 401 api_key_required, sends it on every call, and keeps the draft", async () => {
    const f = await fake({ apiKey: "s3cret-key" });
    const w = await open(f);
    const dialog = w.page.locator("#key-dialog");
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await w.page.locator("#key-reason").textContent()).toBe("This chat needs an API key.");
    await w.page.locator("#key-input").fill("wrong");
    await w.page.locator("#key-input").press("Enter");
    await expect
      .poll(() => w.page.locator("#key-reason").textContent())
      .toBe("The saved API key was not accepted.");
    await w.page.locator("#key-input").fill("s3cret-key");
    await w.page.locator("#key-input").press("Enter");
    await expect.poll(() => dialog.isVisible()).toBe(false);
    await expect.poll(() => w.page.locator("#model").textContent()).toBe("fake-model");
    await w.page.locator("#input").fill("my unsent draft");
    await w.page.locator("#input").dispatchEvent("input");
    // Forget the key and reload: the prompt comes back and the draft is still there afterwards.
    await w.page.evaluate(`localStorage.removeItem("agentsvc:/chat:apiKey")`);
    await w.page.reload();
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await w.page.locator("#input").inputValue()).toBe("my unsent draft");
    await w.page.locator("#key-input").fill("s3cret-key");
    await w.page.locator("#key-input").press("Enter");
    await expect.poll(() => w.page.locator("#model").textContent()).toBe("fake-model");
    await expect.poll(() => w.page.locator("#input").inputValue()).toBe("my unsent draft");
    await w.page.locator("#input").press("Enter");
    await expect.poll(() => assistantText(w).textContent()).toBe("You said: my unsent draft");
    const after = f.requests.filter((r) => r.at >= f.requests.find((q) => q.apiKey === "s3cret-key")!.at);
    expect(after.length).toBeGreaterThan(3);
    expect(after.every((r) => r.apiKey === "s3cret-key" || r.apiKey === undefined)).toBe(true);
    expect(after.filter((r) => r.route === "/stream").every((r) => r.apiKey === "s3cret-key")).toBe(true);
  });

  it("shows the sign-in form, signs in, applies the server theme, and signs out", async () => {
    const f = await fake({ users: [{ username: "ada", password: "pw-1", displayName: "Ada L." }] });
    f.preferences.set("ada", { theme: "dark" });
    const w = await open(f);
    await w.page.evaluate(`localStorage.setItem("agentsvc:/chat:theme", "light")`);
    await w.page.reload();
    const dialog = w.page.locator("#signin-dialog");
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await w.page.keyboard.press("Escape");
    expect(await dialog.isVisible()).toBe(true);
    await w.page.locator("#signin-user").fill("ada");
    await w.page.locator("#signin-pass").fill("nope");
    await w.page.locator("#signin-pass").press("Enter");
    await expect
      .poll(() => w.page.locator("#signin-error").textContent())
      .toBe("Wrong username or password.");
    await w.page.locator("#signin-pass").fill("pw-1");
    await w.page.locator("#signin-pass").press("Enter");
    await expect.poll(() => dialog.isVisible()).toBe(false);
    await expect.poll(() => w.page.locator("#user").textContent()).toBe("Ada L.");
    await expect.poll(() => w.page.evaluate(`document.documentElement.dataset.theme`)).toBe("dark");
    await send(w, "hi");
    await expect.poll(() => assistantText(w).textContent()).toBe("You said: hi");
    await w.page.locator("#sign-out").click();
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await w.page.locator(".msg").count()).toBe(0);
    expect(f.requests.some((r) => r.route === "/auth/logout")).toBe(true);
  });

  it("overlays the sidebar below 40rem and closes it with Escape", async () => {
    const f = await fake();
    const w = await open(f, { width: 390, height: 780 });
    await expect.poll(() => w.page.locator("#model").textContent()).toBe("fake-model");
    const sidebar = w.page.locator("#sidebar");
    expect(await sidebar.isVisible()).toBe(false);
    const openBtn = w.page.getByRole("button", { name: "Open conversations" });
    await openBtn.click();
    await expect.poll(() => sidebar.isVisible()).toBe(true);
    expect(await openBtn.getAttribute("aria-expanded")).toBe("true");
    const sb = (await sidebar.boundingBox())!;
    const tr = (await w.page.locator("#transcript").boundingBox())!;
    expect(sb.x).toBe(0);
    expect(tr.x).toBe(0); // the transcript keeps the full width: the sidebar lies over it
    expect(await w.page.locator("#backdrop").isVisible()).toBe(true);
    await w.page.keyboard.press("Escape");
    await expect.poll(() => sidebar.isVisible()).toBe(false);
    // Reduced motion (the harness default) turns the slide off; without it the sidebar slides.
    const duration = `getComputedStyle(document.getElementById("sidebar")).transitionDuration`;
    expect(await w.page.evaluate(duration)).toBe("0s");
    const moving = await open(f, { width: 390, height: 780, reducedMotion: "no-preference" });
    expect(await moving.page.evaluate(duration)).toBe("0.2s, 0.2s");
    // The composer stays on screen.
    const composer = (await w.page.locator("#composer").boundingBox())!;
    expect(composer.y + composer.height).toBeLessThanOrEqual(780);
  });

  it("labels every icon-only button", async () => {
    const f = await fake();
    const w = await open(f);
    await send(w, "hello");
    await expect.poll(() => assistantText(w).textContent()).toBe("You said: hello");
    const unlabeled = await w.page.evaluate(`[...document.querySelectorAll("button.icon-btn")]
      .filter((b) => !b.getAttribute("aria-label")).map((b) => b.outerHTML)`);
    expect(unlabeled).toEqual([]);
  });

  it("executes nothing from hostile stream content or titles", async () => {
    const f = await fake();
    const w = await open(f);
    await send(w, "xss <img src=x onerror=window.__pwned=10>");
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Reply finished.");
    await w.page.locator("details.thinking summary").click();
    await w.page.locator("details.tool summary").click();
    const links = await w.page
      .locator(".content a")
      .evaluateAll((as) => as.map((a) => a.getAttribute("href")));
    expect(links.every((h) => h !== null && /^https:\/\//.test(h))).toBe(true);
    for (const a of await w.page.locator(".content a").all()) await a.hover();
    expect(
      await w.page
        .locator(".messages img, .messages svg:not(.icon), .messages script, .conv-list img")
        .count(),
    ).toBe(0);
    expect(await w.page.locator(".conv-open").first().textContent()).toBe(
      "xss <img src=x onerror=window.__pwned=10>",
    );
    await w.page.reload();
    await expect.poll(() => w.page.locator(".msg.assistant").count()).toBe(1);
    expect(await w.page.locator(".messages img, .messages svg:not(.icon), .messages script").count()).toBe(0);
    expect(await w.page.evaluate("window.__pwned")).toBeUndefined();
  });

  it("renders markup split across streamed tokens as text, block by block", async () => {
    const f = await fake();
    const w = await open(f);
    const hostile = w.page.locator(".messages img, .messages svg:not(.icon), .messages script");
    // Watched while streaming: every write of the growing reply, not only the final one.
    await w.page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { __seen: string[] }).__seen = seen;
      new MutationObserver((records) => {
        for (const r of records)
          for (const n of Array.from(r.addedNodes))
            if (
              n instanceof Element &&
              (n.matches("img, svg, script") || n.querySelector("img, svg, script"))
            )
              seen.push(n.outerHTML);
      }).observe(document.getElementById("messages")!, { childList: true, subtree: true });
    });
    await send(w, "xsssplit");
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Reply finished.");
    const paragraphs = await assistantText(w).locator(":scope > *").allTextContents();
    expect(paragraphs).toEqual([
      "Before.",
      "<img src=x onerror=window.__pwned=11>",
      "</code><img src=x onerror=window.__pwned=12>",
      "<svg onload=window.__pwned=13>",
      "x after.",
    ]);
    expect(await assistantText(w).locator("code").textContent()).toBe(
      "</code><img src=x onerror=window.__pwned=12>",
    );
    expect(await hostile.count()).toBe(0);
    expect(await w.page.evaluate("window.__seen")).toEqual([]);
    expect(await w.page.evaluate("window.__pwned")).toBeUndefined();
  });

  it("is served under a CSP that Chromium enforces: an injected inline handler is blocked and reported", async () => {
    const f = await fake();
    const w = await open(f);
    await expect.poll(() => w.page.locator("#model").textContent()).toBe("fake-model");
    // Bypass the page's own escaping on purpose, as a bug elsewhere might: the CSP is the second line.
    await w.page.evaluate(`document.getElementById("messages").insertAdjacentHTML("beforeend",
      '<img src="data:," onerror="window.__pwned=1"><p style="color:red">x</p>')`);
    await expect.poll(() => w.cspErrors.length).toBeGreaterThan(0);
    expect(await w.page.evaluate("window.__pwned")).toBeUndefined();
    w.cspErrors.length = 0; // expected here; every other test must produce none
  });

  it("auto-scrolls only while the reader is at the bottom", async () => {
    const f = await fake();
    const w = await open(f, { height: 500 });
    const atBottom = AT_BOTTOM;
    await send(w, "long answer");
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Reply finished.");
    expect(await w.page.evaluate(atBottom)).toBe(true);
    await send(w, "long again");
    // Wait for the second reply's own bubble: the first reply also contains "Line 5".
    await expect.poll(() => w.page.locator(".msg.assistant").count()).toBe(2);
    await expect.poll(() => assistantText(w).textContent()).toContain("Line 5 ");
    await w.page.evaluate(TO_TOP);
    // Where the first message sits in the view: it must not move while the reply grows below.
    const firstTop = `(() => { const s = document.getElementById("transcript"); return document.querySelector("#messages .msg").getBoundingClientRect().top - s.getBoundingClientRect().top; })()`;
    const top = await w.page.evaluate(firstTop);
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Reply finished.");
    expect(await assistantText(w).textContent()).toContain("Line 60 ");
    expect(await w.page.evaluate(firstTop)).toBe(top);
    expect(await w.page.evaluate(atBottom)).toBe(false);
    // A new message pins the view again.
    await send(w, "hello");
    await expect.poll(() => w.page.locator(".msg.assistant").count()).toBe(3);
    await expect.poll(() => w.page.evaluate(atBottom)).toBe(true);
  });

  it("keeps a streaming reply in view at the bottom without scrolling the page (no scroll event per write)", async () => {
    const f = await fake();
    const w = await open(f, { height: 500 });
    const atBottom = AT_BOTTOM;
    await send(w, "hello");
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Reply finished.");
    // A script scroll per write would fire a scroll event, and cost the browser a second frame.
    await w.page.evaluate(`window.__scrolls = 0;
      document.getElementById("transcript").addEventListener("scroll", () => window.__scrolls++)`);
    await send(w, "long answer");
    await expect.poll(() => w.page.locator(".msg.assistant").count()).toBe(2);
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Reply finished.");
    expect(await assistantText(w).textContent()).toContain("Line 60 ");
    expect(await w.page.evaluate(atBottom)).toBe(true);
    expect(await w.page.evaluate("window.__scrolls")).toBe(0);
  });

  it.each([
    ["light", 1100, 760],
    ["dark", 1100, 760],
    ["light", 390, 780],
    ["dark", 390, 780],
  ] as const)("renders a %s %dpx screenshot", async (scheme, width, height) => {
    const f = await fake({ modelName: "demo-model", compact: true });
    const w = await open(f, { width, height, colorScheme: scheme });
    await send(w, "think about cats");
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Reply finished.");
    await w.page.locator("details.thinking summary").click();
    await send(w, "approve please");
    await expect.poll(() => w.page.locator(".approval").count()).toBe(1);
    await w.page.screenshot({ path: join(OUT, `page-${scheme}-${width}.png`) });
    if (width < 640) {
      await w.page.getByRole("button", { name: "Open conversations" }).click();
      await expect.poll(() => w.page.locator("#sidebar").isVisible()).toBe(true);
      await w.page.screenshot({ path: join(OUT, `page-${scheme}-${width}-sidebar.png`) });
    }
  });
});
