// A message sent while the page is still switching conversations (New, or opening one from the
// list) belongs to the conversation being opened: in Chromium against the fake API, with the
// switch's requests held back by the browser until the message has been sent.
import type { Route } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { PageEntry } from "../src/entry.js";
import { pageSuite } from "./browser/suite.js";

const ENTRY: PageEntry = { path: "/chat", title: "Helper Desk", welcome: "Hello! Ask me about cats." };
const suite = pageSuite(ENTRY);

/** Holds the page's requests to `pattern` until `release()`; `held` resolves at the first one. */
function gate() {
  let arrived!: () => void;
  const held = new Promise<void>((ok) => {
    arrived = ok;
  });
  const waiting: Route[] = [];
  let open = false;
  return {
    held,
    handler: (route: Route) => {
      if (open) return void route.continue();
      waiting.push(route);
      arrived();
    },
    release() {
      open = true;
      for (const r of waiting.splice(0)) void r.continue();
    },
  };
}

describe("sending while the conversation switches", () => {
  it("Enter pressed while New is still creating the conversation sends into the new one, after it opens", async () => {
    const f = await suite.fake();
    const w = await suite.open(f);
    const titles = () => w.page.locator(".conv-open").allTextContents();
    await suite.send(w, "first topic");
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Reply finished.");
    await expect.poll(titles).toEqual(["first topic"]);
    const byTitle = (title: string) => [...f.conversations.values()].find((c) => c.title === title)!;
    const first = byTitle("first topic").conversationId;

    const create = gate();
    await w.page.route("**/api/conversations/create", create.handler);
    await w.page.locator("#new-conv").click();
    await create.held;
    await suite.send(w, "second topic");
    // Nothing goes out for the message while the new conversation does not exist yet.
    await w.page.waitForTimeout(200);
    expect(f.requests.filter((r) => r.route === "/stream")).toHaveLength(1);
    create.release();

    await expect.poll(titles).toEqual(["second topic", "first topic"]);
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Reply finished.");
    const streams = f.requests.filter((r) => r.route === "/stream");
    expect(streams).toHaveLength(2);
    const second = (streams[1]!.body as { conversationId?: string }).conversationId;
    expect(second).not.toBe(first);
    expect(byTitle("second topic").conversationId).toBe(second);
    expect(byTitle("first topic").messages.map((m) => m.content)).not.toContain("second topic");
    // On screen: the new conversation with only its own turn.
    expect(await w.page.locator(".msg.user .bubble").allTextContents()).toEqual(["second topic"]);
    expect(await w.page.locator('.conv[aria-current="true"] .conv-open').textContent()).toBe("second topic");
  });

  it("a message sent while an opened conversation's history loads shows after that history", async () => {
    const f = await suite.fake();
    const w = await suite.open(f);
    await suite.send(w, "first topic");
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Reply finished.");
    await w.page.locator("#new-conv").click();
    // New is a switch too (create, list, the new one's /history): until it ends, the status still
    // reads the first reply's "Reply finished." and a message sent waits for it with the list
    // locked. Held from here, that /history would never end it and "first topic" stays disabled.
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("New conversation.");
    await suite.send(w, "second topic");
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Reply finished.");

    const history = gate();
    await w.page.route("**/api/history?*", history.handler);
    await w.page.getByRole("button", { name: "first topic", exact: true }).click();
    await history.held;
    await suite.send(w, "follow-up");
    await w.page.waitForTimeout(200);
    history.release();

    await expect
      .poll(() => w.page.locator(".msg.user .bubble").allTextContents())
      .toEqual(["first topic", "follow-up"]);
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Reply finished.");
    const last = f.requests.filter((r) => r.route === "/stream").at(-1)!;
    const firstId = [...f.conversations.values()].find((c) => c.title === "first topic")!.conversationId;
    expect((last.body as { conversationId?: string }).conversationId).toBe(firstId);
  });

  it("a message sent while a reloaded page's first reads still run goes into the last-opened conversation", async () => {
    const f = await suite.fake();
    const w = await suite.open(f);
    await suite.send(w, "first topic");
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Reply finished.");
    const first = [...f.conversations.values()][0]!.conversationId;

    // The reload's /info (sent from <head>) is held: the page has not decided what to open yet.
    const info = gate();
    await w.page.route("**/api/info", info.handler);
    await w.page.reload();
    await info.held;
    await suite.send(w, "follow-up");
    await w.page.waitForTimeout(200);
    expect(f.requests.filter((r) => r.route === "/conversations/create")).toHaveLength(1);
    info.release();

    await expect
      .poll(() => w.page.locator(".msg.user .bubble").allTextContents())
      .toEqual(["first topic", "follow-up"]);
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Reply finished.");
    const last = f.requests.filter((r) => r.route === "/stream").at(-1)!;
    expect((last.body as { conversationId?: string }).conversationId).toBe(first);
    // No second conversation was created for it.
    expect(f.requests.filter((r) => r.route === "/conversations/create")).toHaveLength(1);
    expect(f.conversations.size).toBe(1);
  });

  it("text typed while New is still creating the conversation stays in the box, as the new one's draft", async () => {
    const f = await suite.fake();
    const w = await suite.open(f);
    await suite.send(w, "first topic");
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Reply finished.");
    const first = [...f.conversations.values()][0]!.conversationId;

    const create = gate();
    await w.page.route("**/api/conversations/create", create.handler);
    await w.page.locator("#new-conv").click();
    await create.held;
    await w.page.locator("#input").pressSequentially("half a thought");
    create.release();

    await expect.poll(() => w.page.locator("#status").textContent()).toBe("New conversation.");
    expect(await w.page.locator("#input").inputValue()).toBe("half a thought");
    const second = [...f.conversations.values()].find((c) => c.conversationId !== first)!.conversationId;
    const draft = (id: string) => w.page.evaluate(`localStorage.getItem("agentsvc:/chat:draft:${id}")`);
    expect(await draft(first)).toBeNull();
    expect(await draft(second)).toBe("half a thought");
    // Going back to the first conversation shows its own (empty) draft, and the text comes back with the new one.
    await w.page.getByRole("button", { name: "first topic", exact: true }).click();
    await expect.poll(() => w.page.locator(".msg.user .bubble").allTextContents()).toEqual(["first topic"]);
    expect(await w.page.locator("#input").inputValue()).toBe("");
  });
});
