/// <reference lib="dom" />
// What a first user meets, in Chromium against the fake API: the empty state, the shared-workspace
// notice, plain error sentences, the phone drawer and header, approval notes and the Thinking chip.
import { describe, expect, it } from "vitest";
import type { PageEntry } from "../src/entry.js";
import { pageSuite } from "./browser/suite.js";

const HOSTILE = "<img src=x onerror=window.__pwned=1>";
const ENTRY: PageEntry = {
  path: "/chat",
  title: "Helper Desk for the Whole Support Team",
  subtitle: "Answers about cats, dogs and the occasional parrot",
  icon: { kind: "emoji", value: "🐱" },
  welcome: "Hello! Ask me about cats.",
  starterPrompts: ["think about cats", HOSTILE],
  footer: "Replies may be wrong; check anything important with a person before acting on it.",
};
const suite = pageSuite(ENTRY);

describe("empty state", () => {
  it("shows the welcome with the entry's starter prompts as text buttons; a click sends one", async () => {
    const f = await suite.fake();
    const w = await suite.open(f);
    await expect.poll(() => w.page.locator("#welcome .welcome-text").textContent()).toBe(ENTRY.welcome);
    const starters = w.page.locator("#welcome .starter");
    expect(await starters.allTextContents()).toEqual(["think about cats", HOSTILE]);
    expect(await w.page.locator("#welcome img").count()).toBe(0);
    await starters.first().click();
    await expect.poll(() => w.page.locator(".msg.user").last().textContent()).toBe("think about cats");
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Reply finished.");
    expect(await w.page.locator("#welcome").isVisible()).toBe(false);
    expect(await w.page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();
  });
});

describe("shared workspace notice", () => {
  it("says once, on the first visit, that a chat without accounts is shared", async () => {
    const f = await suite.fake();
    const w = await suite.open(f);
    const notice = w.page.locator("#shared-notice");
    await expect.poll(() => notice.isVisible()).toBe(true);
    expect(await notice.textContent()).toContain("everyone who opens this page");
    await w.page.getByRole("button", { name: "Got it" }).click();
    expect(await notice.isVisible()).toBe(false);
    await w.page.reload();
    await expect.poll(() => w.page.locator("#model").textContent()).not.toBe("");
    expect(await notice.isVisible()).toBe(false);
  });

  it("is never shown when the entry has accounts", async () => {
    const f = await suite.fake({
      entry: { ...ENTRY, signIn: true },
      users: [{ username: "ann", password: "pw", displayName: "Ann" }],
    });
    const w = await suite.open(f);
    await expect.poll(() => w.page.locator("#signin-dialog").isVisible()).toBe(true);
    await w.page.locator("#signin-user").fill("ann");
    await w.page.locator("#signin-pass").fill("pw");
    await w.page.locator("#signin-pass").press("Enter");
    await expect.poll(() => w.page.locator("#user").textContent()).toContain("Ann");
    expect(await w.page.locator("#shared-notice").isVisible()).toBe(false);
  });
});

describe("errors in plain words", () => {
  it("a message sent while an approval waits gets an action, not the server's internal wording", async () => {
    const f = await suite.fake();
    const w = await suite.open(f);
    await suite.send(w, "approve please");
    await expect.poll(() => w.page.locator(".approval-title").count()).toBe(1);
    await suite.send(w, "hello again");
    await expect
      .poll(() => w.page.locator("#status").textContent())
      .toBe("Approve or reject the pending request first.");
    expect(await w.page.locator("#input").inputValue()).toBe("hello again");
  });
});

describe("approval note", () => {
  it("puts Approved between the tool request and what follows it", async () => {
    const f = await suite.fake();
    const w = await suite.open(f);
    await suite.send(w, "approve please");
    await w.page.getByRole("button", { name: "Approve", exact: true }).click();
    await expect.poll(() => w.page.locator(".approval.decided").textContent()).toBe("Approved.");
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Reply finished.");
    const order = await w.page.evaluate(() => {
      const bubble = document.querySelector(".msg.assistant:last-child .bubble");
      return Array.from(bubble?.children ?? [], (el) => el.className.split(" ")[0]);
    });
    expect(order.indexOf("approval")).toBeGreaterThan(order.indexOf("tools"));
    expect(order.indexOf("approval")).toBeLessThan(order.indexOf("content"));
  });
});

describe("Thinking strip", () => {
  it("stays collapsed as a chip beside the tool chips, not a line of its own", async () => {
    const f = await suite.fake();
    const w = await suite.open(f);
    await suite.send(w, "think about cats");
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("Reply finished.");
    const thinking = w.page.locator(".msg.assistant .thinking").last();
    const tool = w.page.locator(".msg.assistant .tool").last();
    expect(await thinking.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(false);
    const [a, b] = [await thinking.boundingBox(), await tool.boundingBox()];
    expect(a && b && Math.abs(a.y - b.y)).toBeLessThan(2);
    expect(a && b && a.x + a.width).toBeLessThanOrEqual((b?.x ?? 0) + 0.5);
  });
});

describe("phone (390x844)", () => {
  const phone = { width: 390, height: 844 };

  it("New closes the drawer and puts focus in the composer, not under the scrim", async () => {
    const f = await suite.fake();
    const w = await suite.open(f, phone);
    await expect.poll(() => w.page.locator("#model").textContent()).not.toBe("");
    await w.page.locator("#open-sidebar").click();
    await expect.poll(() => w.page.locator("#backdrop").isVisible()).toBe(true);
    await w.page.locator("#new-conv").click();
    await expect.poll(() => w.page.locator("#status").textContent()).toBe("New conversation.");
    expect(await w.page.locator("#app").getAttribute("class")).not.toContain("sidebar-open");
    expect(await w.page.locator("#backdrop").isVisible()).toBe(false);
    expect(await w.page.evaluate(() => document.activeElement?.id)).toBe("input");
    // What is on top at the composer's centre is the composer itself.
    const box = await w.page.locator("#input").boundingBox();
    const top = await w.page.evaluate(
      ([x, y]) => document.elementFromPoint(x as number, y as number)?.id,
      [(box?.x ?? 0) + (box?.width ?? 0) / 2, (box?.y ?? 0) + (box?.height ?? 0) / 2],
    );
    expect(top).toBe("input");
  });

  it("fits the header on one line (title cut with an ellipsis, badge beside it) and the footer on one line", async () => {
    const f = await suite.fake({ modelName: "a-rather-long-model-name-2025-preview" });
    const w = await suite.open(f, phone);
    await expect.poll(() => w.page.locator("#model").textContent()).not.toBe("");
    const h1 = await w.page.locator(".titles h1").boundingBox();
    const model = await w.page.locator("#model").boundingBox();
    const header = await w.page.locator(".header").boundingBox();
    expect(h1 && model && h1.x + h1.width).toBeLessThanOrEqual((model?.x ?? 0) + 0.5);
    expect(h1 && model && Math.abs(h1.y + h1.height / 2 - (model.y + model.height / 2))).toBeLessThan(4);
    expect(header?.height).toBeLessThan(56);
    expect(await w.page.locator(".subtitle").isVisible()).toBe(false);
    const title = await w.page.locator(".titles h1").evaluate((el) => ({
      cut: el.scrollWidth > el.clientWidth,
      ellipsis: getComputedStyle(el).textOverflow,
    }));
    expect(title).toEqual({ cut: true, ellipsis: "ellipsis" });
    const footer = await w.page.locator(".footer").evaluate((el) => ({
      height: el.getBoundingClientRect().height,
      line: Number.parseFloat(getComputedStyle(el).lineHeight),
    }));
    expect(footer.height).toBeLessThan(footer.line * 1.5);
  });
});
