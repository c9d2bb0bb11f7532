// The chat page end to end: real Chromium against the REAL server (startServer on 127.0.0.1, the
// built page with its hash CSP, the ChatUi API, a SQLite store in a temp dir) on the demo model.
// Fixtures: fixtures/page-e2e (unscripted demo agent with a lookup tool and an approval-gated
// delete_file tool; entries /chat, /quiet, /keyed, /team) and fixtures/page-xss (a scripted agent
// whose every output is hostile markup; entry /x with hostile branding).
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadProject } from "@agentsvc/config-schema";
import pino from "pino";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
// The page package's Chromium harness (launch flags, CSP/dialog/error watchers); playwright-core
// resolves from that package, which owns the browser dependency.
import { launchBrowser, openPage, type Watched } from "../../../packages/webui-page/test/browser/harness.js";
import { type RunningServer, startServer } from "../src/index.js";
import { sharedUserIdOf, threadScope } from "@agentsvc/webui";

const FIXTURES = resolve(import.meta.dirname, "fixtures");
const OUT = resolve(import.meta.dirname, "../../../packages/webui-page/test-output");
const API_KEY = "page-e2e-key-7f3a";
const DEMO_MODEL = "agentsvc-demo (scripted demo model)";
// Quoted back word by word (about 60 demo tokens at 30 ms): long enough that Stop and Steer land
// while the reply streams, short enough (< 200 characters) that the demo model quotes it whole. At
// 15 ms a CI run's Stop, clicked once w5 showed, landed after w44 (0.75 s left to click in).
const LONG = Array.from({ length: 45 }, (_, i) => `w${i}`).join(" ");

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let main: RunningServer;
let hostile: RunningServer;
const pages: Watched[] = [];

async function start(fixture: string, env: NodeJS.ProcessEnv = {}): Promise<RunningServer> {
  const loaded = await loadProject(join(FIXTURES, fixture));
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => `${e.file}: ${e.path}: ${e.message}`).join("\n"));
  // Store and built page in a fresh temp dir; the agents were already loaded from the fixture.
  const root = mkdtempSync(join(tmpdir(), `agentsvc-${fixture}-`));
  return startServer(
    { ...loaded.project, root },
    { port: 0, logger: pino({ level: "silent" }), env, buildDir: join(root, "build"), interactive: false },
  );
}

async function open(
  server: RunningServer,
  path: string,
  opts: Parameters<typeof openPage>[2] = {},
): Promise<Watched> {
  const w = await openPage(browser, `${server.url}${path}/index.html`, opts);
  pages.push(w);
  return w;
}

async function api<T = Record<string, unknown>>(
  path: string,
  route: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const res = await fetch(`${main.url}${path}/api${route}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await res.json()) as T;
}

type HistoryMessage = { role: string; content?: string; toolName?: string };
type Listed = { conversations: { conversationId: string; title: string }[] };
/** Stored messages of a conversation of the open workspace; by default the newest one. */
async function history(conversationId?: string): Promise<HistoryMessage[]> {
  const id =
    conversationId ?? (await api<Listed>("/chat", "/conversations")).conversations[0]?.conversationId;
  if (!id) return [];
  return (await api<{ messages: HistoryMessage[] }>("/chat", `/history?conversationId=${id}`)).messages;
}

async function send(w: Watched, text: string): Promise<void> {
  await w.page.locator("#input").fill(text);
  await w.page.locator("#input").press("Enter");
}

const statusText = (w: Watched) => w.page.locator("#status").textContent();
const assistantText = (w: Watched) => w.page.locator(".msg.assistant .content").last();
const finished = (w: Watched) =>
  expect.poll(() => statusText(w), { timeout: 10_000 }).toBe("Reply finished.");
const quoted = (text: string) =>
  `You said: "${text}". (This reply comes from the agentsvc demo model, a scripted stand-in; configure a real model for real answers.)`;

beforeAll(async () => {
  mkdirSync(OUT, { recursive: true });
  [browser, main, hostile] = await Promise.all([
    launchBrowser(),
    start("page-e2e", { PAGE_E2E_KEY: API_KEY }),
    start("page-xss"),
  ]);
});

// The open workspace (no `users`) is shared by /chat, /quiet and /keyed (one store file): every
// test starts from no conversations and an empty "default" conversation.
beforeEach(async () => {
  const { conversations } = await api<{ conversations: { conversationId: string }[] }>(
    "/chat",
    "/conversations",
  );
  for (const c of conversations)
    await api("/chat", "/conversations/delete", { conversationId: c.conversationId });
  await api("/chat", "/clear", { conversationId: "default" });
  await api("/chat", "/preferences/delete", { key: "theme" });
});

afterEach(async () => {
  // No test may trigger a CSP violation, a JS dialog or an uncaught page error.
  for (const p of pages.splice(0)) {
    expect(p.cspErrors, "CSP violations").toEqual([]);
    expect(p.dialogs, "JS dialogs").toEqual([]);
    expect(p.pageErrors, "uncaught page errors").toEqual([]);
    await p.context.close();
  }
});

afterAll(async () => {
  await browser?.close();
  await Promise.all([main?.shutdown(), hostile?.shutdown()]);
});

describe("the chat page against the real server", () => {
  it("is served with the hash CSP and streams a demo-model reply after Enter", async () => {
    const res = await fetch(`${main.url}/chat/index.html`);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'sha256-[^']+'/);
    expect(csp).not.toContain("unsafe-inline");

    const w = await open(main, "/chat");
    await expect.poll(() => w.page.locator("#model").textContent()).toBe(DEMO_MODEL);
    expect(await w.page.locator("#welcome .welcome-text").textContent()).toBe("Hello from the e2e fixture.");
    await send(w, "hello there");
    await expect.poll(() => w.page.locator("#send-btn").textContent()).toBe("Steer");
    await finished(w);
    expect(await assistantText(w).textContent()).toBe(quoted("hello there"));
    expect(await w.page.locator(".msg.user .bubble").textContent()).toBe("hello there");
    await expect.poll(() => w.page.locator(".conv-open").allTextContents()).toEqual(["hello there"]);
    // The server persisted the turn before `done`.
    const stored = await history();
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(stored[1]?.content).toBe(quoted("hello there"));
  });

  it("shows reasoning and tool calls in collapsed strips that open on click", async () => {
    const w = await open(main, "/chat");
    await send(w, "please lookup cats");
    await finished(w);
    const thinking = w.page.locator("details.thinking");
    expect(await thinking.count()).toBe(1);
    expect(await thinking.getAttribute("open")).toBeNull();
    await thinking.locator("summary").click();
    expect(await thinking.getAttribute("open")).toBe("");
    // Two model steps (call the tool, then answer): their reasoning stays apart.
    const reasoning =
      "The user asked for the lookup tool, so I will call it.\n\nI have the tool result, so I can answer now.";
    expect(await thinking.locator(".reasoning").textContent()).toBe(reasoning);
    const chip = w.page.locator("details.tool");
    expect(await chip.count()).toBe(1);
    expect(await chip.getAttribute("open")).toBeNull();
    expect(await chip.locator(".tool-name").textContent()).toBe("lookup");
    await chip.locator("summary").click();
    expect(await chip.getAttribute("open")).toBe("");
    expect(JSON.parse((await chip.locator(".tool-args").textContent()) ?? "")).toEqual({
      q: "please lookup cats",
    });
    expect(await assistantText(w).textContent()).toBe('The tool lookup returned: {"found":18}.');
    // After a reload the same strips come back from /history, with the tool result in the chip.
    await w.page.reload();
    await expect.poll(() => w.page.locator("details.tool .tool-name").textContent()).toBe("lookup");
    expect(await w.page.locator("details.tool .tool-result").textContent()).toBe('{\n  "found": 18\n}');
    expect(await w.page.locator("details.thinking").count()).toBe(1);
    expect(await w.page.locator("details.thinking .reasoning").textContent()).toBe(reasoning);
  });

  it("replays a long stored history in order, opens at the bottom and streams below it", async () => {
    const { conversationId } = await api<{ conversationId: string }>("/chat", "/conversations/create", {
      title: "long one",
    });
    const seeded = Array.from({ length: 300 }, (_, i) =>
      i % 2 === 0
        ? { role: "user" as const, content: `question ${i / 2}` }
        : { role: "assistant" as const, content: `**answer** ${(i - 1) / 2}`, reasoning: `thinking ${i}` },
    );
    await main.memory.append({ userId: sharedUserIdOf({ entryName: "chat" }), conversationId }, seeded);
    const w = await open(main, "/chat");
    // Older groups are built in idle time, one per idle period: on a loaded machine that takes
    // longer than expect.poll's default second.
    await expect.poll(() => w.page.locator("#messages .msg").count(), { timeout: 10_000 }).toBe(300);
    const users = await w.page.locator(".msg.user .bubble").allTextContents();
    expect(users).toEqual(Array.from({ length: 150 }, (_, i) => `question ${i}`));
    // Older groups are built when reached or in idle time, each reply with its markdown.
    await expect.poll(() => w.page.locator(".msg.assistant .content strong").count()).toBe(150);
    // Page-side expressions are strings: this package's typecheck has no DOM lib.
    const atBottom = () =>
      w.page.evaluate(
        `(() => { const s = document.getElementById("transcript"); const m = [...document.querySelectorAll("#messages .msg")].at(-1); return !m || m.getBoundingClientRect().bottom - s.getBoundingClientRect().bottom < 48; })()`,
      );
    await expect.poll(atBottom).toBe(true);
    expect(await w.page.locator(".msg.assistant .content").last().isVisible()).toBe(true);
    await send(w, "after the long history");
    await finished(w);
    expect(await assistantText(w).textContent()).toBe(quoted("after the long history"));
    await expect.poll(atBottom).toBe(true);
    // Scrolling to the top shows the first message (off-screen groups render when reached).
    // (The transcript scrolls from its bottom; the clamped negative scrollTop is its top.)
    await w.page.evaluate(
      `(() => { const s = document.getElementById("transcript"); s.scrollTop = -s.scrollHeight; })()`,
    );
    await expect.poll(() => w.page.getByText("question 0", { exact: true }).isVisible()).toBe(true);
  });

  it("lists the newest 200 conversations and shows older pages on request, each conversation once", async () => {
    const before = (await api<Listed>("/quiet", "/conversations?limit=1000")).conversations.length;
    // "page 0" and "page 1" first, one after the other (the list ends with them, the oldest); the
    // other 203 sixteen at a time (in the order they were made, 205 round trips took 3-4 s).
    const create = (i: number) => api("/quiet", "/conversations/create", { title: `page ${i}` });
    for (const i of [0, 1]) await create(i);
    for (let from = 2; from < 205; from += 16)
      await Promise.all(Array.from({ length: Math.min(16, 205 - from) }, (_, k) => create(from + k)));
    const w = await open(main, "/quiet");
    const rows = w.page.locator("#conv-list .conv-open");
    await expect.poll(() => rows.count()).toBe(200);
    const more = w.page.getByRole("button", { name: "Show older conversations" });
    await more.click();
    await expect.poll(() => rows.count()).toBe(before + 205);
    expect(await more.count()).toBe(0);
    const titles = await rows.allTextContents();
    expect(new Set(titles).size).toBe(titles.length);
    expect(titles.filter((t) => t.startsWith("page ")).slice(-2)).toEqual(["page 1", "page 0"]);
    // Deleting a conversation from the older page removes it; the rest of that page stays listed.
    await w.page.getByRole("button", { name: "Delete page 1", exact: true }).click();
    await w.page.getByRole("button", { name: "Confirm delete page 1", exact: true }).click();
    await expect.poll(() => rows.count()).toBe(before + 204);
    expect((await rows.allTextContents()).at(-1)).toBe("page 0");
  });

  it("hides the Thinking strip and tool chips on an entry with both flags false", async () => {
    const w = await open(main, "/quiet");
    await send(w, "please lookup cats");
    await finished(w);
    expect(await assistantText(w).textContent()).toBe('The tool lookup returned: {"found":18}.');
    expect(await w.page.locator(".thinking").count()).toBe(0);
    expect(await w.page.locator(".tool").count()).toBe(0);
    await w.page.reload();
    await expect.poll(() => assistantText(w).textContent()).toBe('The tool lookup returned: {"found":18}.');
    expect(await w.page.locator(".thinking, .tool").count()).toBe(0);
  });

  it("splices a steer message sent during a slow reply into the same turn", async () => {
    const w = await open(main, "/chat");
    await send(w, LONG);
    await expect.poll(() => assistantText(w).textContent()).toContain("w3");
    expect(await w.page.locator("#send-btn").textContent()).toBe("Steer");
    await send(w, "go left");
    await expect.poll(() => w.page.locator(".msg.user.steer .bubble").textContent()).toBe("Steergo left");
    await finished(w);
    // One assistant bubble holds both the original reply and the one to the steer message.
    expect(await w.page.locator(".msg.assistant").count()).toBe(1);
    const text = (await assistantText(w).textContent()) ?? "";
    expect(text).toContain(`You said: "${LONG}"`);
    expect(text).toContain('You said: "go left"');
    // The second model step's text is its own paragraph, not glued to the first.
    expect(await assistantText(w).locator("p").count()).toBe(2);
    // Server side: one conversation, the steer stored as a user message of that turn.
    const stored = await history();
    expect(stored.filter((m) => m.role === "user").map((m) => m.content)).toEqual([LONG, "go left"]);
  });

  it("Stop keeps the partial text, and the server cancels the run", async () => {
    const w = await open(main, "/chat");
    const cancelBodies: { threadId?: string }[] = [];
    w.page.on("request", (r) => {
      if (r.url().endsWith("/chat/api/cancel")) cancelBodies.push(r.postDataJSON() as { threadId?: string });
    });
    await send(w, LONG);
    await expect.poll(() => assistantText(w).textContent()).toContain("w5");
    await w.page.locator("#stop-btn").click();
    await expect.poll(() => statusText(w)).toBe("Reply stopped.");
    const partial = (await assistantText(w).textContent()) ?? "";
    expect(partial).toContain("w5");
    expect(partial).not.toContain("w44");
    expect(await w.page.locator(".msg.assistant .note").last().textContent()).toBe("Stopped.");
    expect(await w.page.locator("#send-btn").textContent()).toBe("Send");
    // Server side: the run the page cancelled (threadId from its /cancel call) ended as cancelled,
    // and memory holds no more of the reply than the page showed.
    const threadId = cancelBodies[0]?.threadId ?? "";
    expect(threadId).not.toBe("");
    const run = main.runs.get(threadScope(sharedUserIdOf({ entryName: "chat" })) + threadId);
    expect((await run?.done)?.status).toBe("cancelled");
    const stored = await history();
    expect(stored[0]).toMatchObject({ role: "user", content: LONG });
    for (const m of stored.slice(1)) expect(m.content ?? "").not.toContain("w44");
  });

  it.each([
    ["approve", "Approved.", 'The tool delete_file returned: {"deleted":"please delete_file /tmp/x"}.'],
    ["reject", "Rejected.", "The tool delete_file failed: Rejected:"],
  ])(
    "shows an approval card and streams the continuation into the same bubble after %s",
    async (decision, label, reply) => {
      const w = await open(main, "/chat");
      await send(w, "please delete_file /tmp/x");
      const card = w.page.locator(".approval");
      await expect
        .poll(() => card.locator(".approval-title").textContent())
        .toBe("Approval needed: delete_file");
      expect(JSON.parse((await card.locator("pre").textContent()) ?? "")).toEqual({
        path: "please delete_file /tmp/x",
      });
      // Reload: the suspended run's card comes back from /pending.
      await w.page.reload();
      await expect
        .poll(() => card.locator(".approval-title").textContent())
        .toBe("Approval needed: delete_file");
      await card.getByRole("button", { name: decision === "approve" ? "Approve" : "Reject" }).click();
      await finished(w);
      expect(await card.textContent()).toBe(label);
      await expect.poll(() => assistantText(w).textContent()).toContain(reply);
      // Server side: the decision was applied and the turn completed (nothing pending any more).
      const stored = await history();
      const tool = stored.find((m) => m.role === "tool") as { result?: unknown; isError?: boolean };
      expect(tool.isError === true).toBe(decision === "reject");
      expect(stored.at(-1)?.content).toContain(reply);
    },
  );

  it("New, rename and delete conversations; reload reopens the last one or falls back to the newest", async () => {
    const w = await open(main, "/chat");
    const titles = () => w.page.locator(".conv-open").allTextContents();
    const firstUser = () => w.page.locator(".msg.user .bubble").first().textContent();
    await send(w, "first topic");
    await finished(w);
    await expect.poll(titles).toEqual(["first topic"]);
    await w.page.locator("#new-conv").click();
    await expect.poll(() => w.page.locator("#welcome").isVisible()).toBe(true);
    await send(w, "second topic");
    await finished(w);
    await expect.poll(titles).toEqual(["second topic", "first topic"]);
    // New deleted nothing: the first conversation's messages are still on the server.
    const listedFirst = (await api<Listed>("/chat", "/conversations")).conversations;
    const firstId = listedFirst.find((c) => c.title === "first topic")?.conversationId ?? "";
    expect((await history(firstId)).map((m) => m.content)).toContain("first topic");

    await w.page.getByRole("button", { name: "Rename second topic" }).click();
    await w.page.locator(".conv-edit").fill("<b>Renamed</b> topic");
    await w.page.locator(".conv-edit").press("Enter");
    await expect.poll(titles).toEqual(["<b>Renamed</b> topic", "first topic"]);
    expect(await w.page.locator(".conv-list b").count()).toBe(0);
    const listed = await api<Listed>("/chat", "/conversations");
    expect(listed.conversations.map((c) => c.title)).toEqual(["<b>Renamed</b> topic", "first topic"]);

    // Reload reopens the last-opened conversation, not the newest.
    await w.page.getByRole("button", { name: "first topic", exact: true }).click();
    await expect.poll(firstUser).toBe("first topic");
    await w.page.reload();
    await expect.poll(firstUser).toBe("first topic");
    expect(await w.page.locator('.conv[aria-current="true"] .conv-open').textContent()).toBe("first topic");

    // Deleting the open conversation falls back to the newest remaining, also after a reload.
    await w.page.getByRole("button", { name: "Delete first topic" }).click();
    await w.page.getByRole("button", { name: "Confirm delete first topic" }).click();
    await expect.poll(titles).toEqual(["<b>Renamed</b> topic"]);
    await expect.poll(firstUser).toBe("second topic");
    await w.page.reload();
    await expect.poll(firstUser).toBe("second topic");
    // The server removed the row and the messages.
    expect(await history(firstId)).toEqual([]);
    expect((await api<Listed>("/chat", "/conversations")).conversations).toHaveLength(1);
  });

  it("compacts through the demo summary model and says what happened", async () => {
    const w = await open(main, "/chat");
    await w.page.locator("#menu-btn").click();
    await expect.poll(() => w.page.locator("#compact-btn").isVisible()).toBe(true);
    await w.page.locator("#compact-btn").click();
    await expect.poll(() => statusText(w)).toBe("Nothing to compact (0 messages).");
    for (const text of ["one", "two", "three"]) {
      await send(w, text);
      await finished(w);
    }
    await w.page.locator("#menu-btn").click();
    await w.page.locator("#compact-btn").click();
    await expect.poll(() => statusText(w)).toBe("Compacted: 6 messages became 5.");
    // The page now shows what the server holds: the summary (collapsed), then the recent turns.
    await expect.poll(() => w.page.locator(".msg").count()).toBe(5);
    const note = w.page.locator(".msg.system details.summary-note");
    expect(await note.getAttribute("open")).toBeNull();
    await note.locator("summary").click();
    expect(await note.locator(".reasoning").textContent()).toMatch(/^Summary of the earlier conversation: /);
    expect(await w.page.locator(".msg.user .bubble").allTextContents()).toEqual(["two", "three"]);
    const stored = await history();
    expect(stored).toHaveLength(5);
    expect(stored[0]?.role).toBe("system");
    expect(stored.slice(1).map((m) => m.content)).toEqual(["two", quoted("two"), "three", quoted("three")]);
  });

  it("keeps a signed-in user's theme across a reload and in a second browser context", async () => {
    const signIn = async (w: Watched, user: string, password: string) => {
      await expect.poll(() => w.page.locator("#signin-dialog").isVisible()).toBe(true);
      await w.page.locator("#signin-user").fill(user);
      await w.page.locator("#signin-pass").fill(password);
      await w.page.locator("#signin-pass").press("Enter");
      await expect.poll(() => w.page.locator("#signin-dialog").isVisible()).toBe(false);
    };
    const theme = (w: Watched) => w.page.evaluate("document.documentElement.dataset.theme ?? null");
    const a = await open(main, "/team");
    await signIn(a, "ada", "ada-pw-1");
    await expect.poll(() => a.page.locator("#user").textContent()).toBe("Ada L.");
    await a.page.locator("#theme-toggle").click(); // system -> light
    await a.page.locator("#theme-toggle").click(); // light -> dark
    expect(await theme(a)).toBe("dark");
    await expect
      .poll(async () => {
        const r = await a.page.request.get(`${main.url}/team/api/preferences`);
        return ((await r.json()) as { preferences: { theme?: string } }).preferences.theme;
      })
      .toBe("dark");
    await a.page.reload();
    await expect.poll(() => theme(a)).toBe("dark");
    expect(await a.page.evaluate("getComputedStyle(document.body).backgroundColor")).toBe("rgb(13, 17, 23)");

    // A fresh context (another browser) that prefers light: the server copy wins once signed in.
    const b = await open(main, "/team", { colorScheme: "light" });
    expect(await theme(b)).toBeNull();
    await signIn(b, "ada", "ada-pw-1");
    await expect.poll(() => theme(b)).toBe("dark");

    // Another user does not get Ada's theme.
    const c = await open(main, "/team");
    await signIn(c, "bob", "bob-pw-2");
    await expect.poll(() => c.page.locator("#user").textContent()).toBe("Bob");
    expect(await theme(c)).toBeNull();
  });

  it("gates /team behind sign-in: wrong password refused, own conversations only, sign out", async () => {
    const w = await open(main, "/team");
    const dialog = w.page.locator("#signin-dialog");
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await w.page.keyboard.press("Escape");
    expect(await dialog.isVisible()).toBe(true);
    // Nothing but the gate answers without a session.
    const anon = await fetch(`${main.url}/team/api/conversations`);
    expect(anon.status).toBe(401);
    expect(((await anon.json()) as { error: { code: string } }).error.code).toBe("sign_in_required");
    await w.page.locator("#signin-user").fill("ada");
    await w.page.locator("#signin-pass").fill("wrong");
    await w.page.locator("#signin-pass").press("Enter");
    await expect
      .poll(() => w.page.locator("#signin-error").textContent())
      .toBe("Wrong username or password.");
    await w.page.locator("#signin-pass").fill("ada-pw-1");
    await w.page.locator("#signin-pass").press("Enter");
    await expect.poll(() => dialog.isVisible()).toBe(false);
    const topic = `ada private ${Date.now()}`;
    await send(w, topic);
    await finished(w);
    await expect.poll(() => w.page.locator(".conv-open").first().textContent()).toBe(topic);

    // Bob, in another browser, sees none of Ada's conversations.
    const bob = await open(main, "/team");
    await bob.page.locator("#signin-user").fill("bob");
    await bob.page.locator("#signin-pass").fill("bob-pw-2");
    await bob.page.locator("#signin-pass").press("Enter");
    await expect.poll(() => bob.page.locator("#user").textContent()).toBe("Bob");
    expect(await bob.page.locator(".conv-open").allTextContents()).not.toContain(topic);
    expect(await bob.page.locator(".msg").count()).toBe(0);
    // Bob's first turn works too: the page asked for a fresh conversation id instead of reusing
    // "default", whose store row another account may already own.
    await send(bob, "bob here");
    await finished(bob);
    expect(await assistantText(bob).textContent()).toBe(quoted("bob here"));

    await w.page.locator("#sign-out").click();
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await w.page.locator(".msg").count()).toBe(0);
    await w.page.reload();
    await expect.poll(() => dialog.isVisible()).toBe(true);
  });

  it("asks for the API key, sends it on every call, and keeps the draft through the prompt", async () => {
    expect((await fetch(`${main.url}/keyed/api/info`)).status).toBe(401);
    const w = await open(main, "/keyed");
    const keyHeaders: (string | undefined)[] = [];
    w.page.on("request", (r) => {
      if (r.url().includes("/keyed/api/")) keyHeaders.push(r.headers()["x-api-key"]);
    });
    const dialog = w.page.locator("#key-dialog");
    const enterKey = async (key: string) => {
      await w.page.locator("#key-input").fill(key);
      await w.page.locator("#key-input").press("Enter");
    };
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await w.page.locator("#key-reason").textContent()).toBe("This chat needs an API key.");
    await enterKey("wrong-key");
    await expect
      .poll(() => w.page.locator("#key-reason").textContent())
      .toBe("The saved API key was not accepted.");
    await enterKey(API_KEY);
    await expect.poll(() => dialog.isVisible()).toBe(false);
    await expect.poll(() => w.page.locator("#model").textContent()).toBe(DEMO_MODEL);
    // A draft typed, then the key is lost (another device rotated it, storage cleared): the prompt
    // returns on reload and the draft is still there once the key is entered again.
    await w.page.locator("#input").fill("my unsent draft");
    await w.page.locator("#input").dispatchEvent("input");
    await w.page.evaluate(() => localStorage.removeItem("agentsvc:/keyed:apiKey"));
    await w.page.reload();
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await enterKey(API_KEY);
    await expect.poll(() => w.page.locator("#model").textContent()).toBe(DEMO_MODEL);
    expect(await w.page.locator("#input").inputValue()).toBe("my unsent draft");
    keyHeaders.length = 0;
    await w.page.locator("#input").press("Enter");
    await finished(w);
    expect(await assistantText(w).textContent()).toBe(quoted("my unsent draft"));
    expect(keyHeaders.length).toBeGreaterThan(0);
    expect(keyHeaders.every((k) => k === API_KEY)).toBe(true);
  });

  it("overlays the sidebar below 40rem and keeps the composer on screen", async () => {
    const w = await open(main, "/chat", { width: 390, height: 780 });
    await expect.poll(() => w.page.locator("#model").textContent()).toBe(DEMO_MODEL);
    const sidebar = w.page.locator("#sidebar");
    expect(await sidebar.isVisible()).toBe(false);
    await send(w, "narrow hello");
    await finished(w);
    await w.page.getByRole("button", { name: "Open conversations" }).click();
    await expect.poll(() => sidebar.isVisible()).toBe(true);
    const sb = await sidebar.boundingBox();
    const tr = await w.page.locator("#transcript").boundingBox();
    expect(sb?.x).toBe(0);
    expect(tr?.x).toBe(0); // the transcript keeps its width: the sidebar lies over it
    expect(await w.page.locator(".conv-open").allTextContents()).toEqual(["narrow hello"]);
    await w.page.locator("#backdrop").click({ position: { x: 370, y: 400 } });
    await expect.poll(() => sidebar.isVisible()).toBe(false);
    const composer = await w.page.locator("#composer").boundingBox();
    expect((composer?.y ?? 0) + (composer?.height ?? 0)).toBeLessThanOrEqual(780);
  });

  it.each([
    ["light", 1100, 760],
    ["dark", 1100, 760],
    ["light", 390, 780],
    ["dark", 390, 780],
  ] as const)("renders the real page %s at %dpx (screenshot)", async (scheme, width, height) => {
    const w = await open(main, "/chat", { width, height, colorScheme: scheme });
    await send(w, "please lookup cats");
    await finished(w);
    await w.page.locator("details.thinking summary").click();
    await w.page.locator("details.tool summary").click();
    await send(w, "please delete_file /tmp/x");
    await expect.poll(() => w.page.locator(".approval").count()).toBe(1);
    await w.page.screenshot({ path: join(OUT, `e2e-${scheme}-${width}.png`) });
    if (width < 640) {
      await w.page.getByRole("button", { name: "Open conversations" }).click();
      await expect.poll(() => w.page.locator("#sidebar").isVisible()).toBe(true);
      await w.page.screenshot({ path: join(OUT, `e2e-${scheme}-${width}-sidebar.png`) });
      await w.page.keyboard.press("Escape");
      await expect.poll(() => w.page.locator("#sidebar").isVisible()).toBe(false);
    }
    // Leave nothing suspended for the next test's cleanup.
    await w.page.getByRole("button", { name: "Reject" }).click();
    await finished(w);
  });
});

describe("hostile content through the real server", () => {
  it("executes nothing from hostile branding, stream, tool names, titles or history", async () => {
    const w = await open(hostile, "/x");
    expect(await w.page.title()).toBe("<img src=x onerror=\"window.__pwned='title'\">Hostile");
    await expect.poll(() => w.page.locator("#model").textContent()).toBe(DEMO_MODEL);
    expect(await w.page.locator("#welcome .welcome-text").textContent()).toBe(
      "<svg onload=\"window.__pwned='welcome'\">",
    );
    const typed = "<img src=x onerror=\"window.__pwned='user'\"> [x](javascript:window.__pwned='u')";
    await send(w, typed);
    await finished(w);
    expect(await w.page.locator(".msg.user .bubble").textContent()).toBe(typed);
    await w.page.locator("details.thinking summary").click();
    await w.page.locator("details.tool summary").click();
    expect(await w.page.locator(".tool-name").textContent()).toBe(
      "<svg onload=\"window.__pwned='toolname'\">",
    );
    expect(await w.page.locator(".thinking .reasoning").textContent()).toContain("<img src=x onerror=");
    const text = (await assistantText(w).textContent()) ?? "";
    expect(text).toContain("<script>window.__pwned='script'</script>");
    expect(await assistantText(w).locator("strong").textContent()).toBe("bold");
    const hrefs = () =>
      w.page.locator(".messages a").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
    for (const href of await hrefs()) expect(href).toMatch(/^https:\/\/example\.com\/[^"\s]*$/);
    for (const a of await w.page.locator(".messages a").all()) await a.hover();
    // The server cut the title to 60 characters; it is still the typed text, as text.
    expect(typed.startsWith((await w.page.locator(".conv-open").first().textContent()) ?? "-")).toBe(true);
    await w.page.locator(".conv .icon-btn[aria-label^='Rename']").first().click();
    await w.page.locator(".conv-edit").fill("<svg onload=\"window.__pwned='rename'\">t");
    await w.page.locator(".conv-edit").press("Enter");
    await expect
      .poll(() => w.page.locator(".conv-open").first().textContent())
      .toBe("<svg onload=\"window.__pwned='rename'\">t");

    const injected =
      ".messages img, .messages svg:not(.icon), .messages script, .messages iframe, .conv-list img, .conv-list svg:not(.icon), header img";
    expect(await w.page.locator(injected).count()).toBe(0);
    // The same content replayed from /history after a reload.
    await w.page.reload();
    await expect
      .poll(() => w.page.locator(".tool-name").textContent())
      .toBe("<svg onload=\"window.__pwned='toolname'\">");
    await expect
      .poll(() => assistantText(w).textContent())
      .toContain("<script>window.__pwned='script'</script>");
    expect(await w.page.locator(injected).count()).toBe(0);
    for (const href of await hrefs()) expect(href).toMatch(/^https:\/\/example\.com\/[^"\s]*$/);
    expect(await w.page.evaluate("window.__pwned")).toBeUndefined();
  });
});
