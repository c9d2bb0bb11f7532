// A small, faithful fake of the ChatUi API contract (briefs/WEBUI-API.md) for browser tests of the
// page: same routes, bodies, error shapes, SSE framing and 401 codes. Serves the page with the
// real CSP headers. Records every API request so tests can assert what the page sent.
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { type Context, Hono } from "hono";
import { getCookie, setCookie, deleteCookie } from "hono/cookie";
import { pageSecurityHeaders } from "../../src/csp.js";
import type { PageEntry } from "../../src/entry.js";
import { assemblePage, type ClientAssets } from "../../src/render.js";
import { type PendingCall, resumeScript, type Step, scriptFor } from "./scripts.js";

interface Msg {
  role: "user" | "assistant" | "tool";
  content?: string;
  reasoning?: string;
  toolCalls?: { id: string; name: string; arguments: unknown }[];
  toolCallId?: string;
  toolName?: string;
  result?: unknown;
  /** A reply a failure cut short, as agent-core stores it. */
  interrupted?: true;
}

interface Conversation {
  owner: string;
  conversationId: string;
  title: string;
  updatedAt: number;
  messages: Msg[];
}

interface Run {
  threadId: string;
  owner: string;
  conversationId: string;
  cancelled: boolean;
  steers: string[];
  active: boolean;
  pending: (PendingCall & { createdAt: number }) | null;
}

export interface FakeOptions {
  entry: PageEntry;
  assets: ClientAssets;
  themeCss?: string;
  apiKey?: string;
  users?: { username: string; password: string; displayName: string }[];
  compact?: boolean;
  modelName?: string;
  failPreferenceWrites?: boolean;
}

export interface RecordedRequest {
  method: string;
  route: string;
  body: unknown;
  apiKey: string | undefined;
  at: number;
}

export interface FakeApi {
  url: string;
  pageUrl: string;
  requests: RecordedRequest[];
  conversations: Map<string, Conversation>;
  preferences: Map<string, Record<string, unknown>>;
  streamClosedAt: Map<string, number>;
  /** The next page load gets its HTML up to the main script; the rest follows `release()`. */
  holdMainScript(): { release(): void };
  close(): Promise<void>;
}

const fail = (c: Context, status: 400 | 401 | 403 | 404 | 409, code: string, message: string) =>
  c.json({ success: false, error: { code, message } }, status);

let clock = Date.now();
const tick = () => ++clock;

export async function startFakeApi(opts: FakeOptions): Promise<FakeApi> {
  const path = opts.entry.path.replace(/\/+$/, "");
  const html = assemblePage(opts.entry, opts.themeCss ?? "", opts.assets);
  const headers = pageSecurityHeaders(html);
  const conversations = new Map<string, Conversation>();
  const preferences = new Map<string, Record<string, unknown>>();
  const sessions = new Map<string, string>();
  const runs = new Map<string, Run>();
  const requests: RecordedRequest[] = [];
  const streamClosedAt = new Map<string, number>();
  const app = new Hono();

  // Armed by holdMainScript: the next page is sent up to its main script, the rest on release.
  let held: Promise<void> | undefined;
  app.get(`${path}/index.html`, (c) => {
    const page = { ...headers, "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache" };
    const wait = held;
    held = undefined;
    if (!wait) return c.body(html, 200, page);
    const cut = html.lastIndexOf("<script>");
    const bytes = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(bytes.encode(html.slice(0, cut)));
        await wait;
        controller.enqueue(bytes.encode(html.slice(cut)));
        controller.close();
      },
    });
    return c.body(body, 200, page);
  });

  const api = new Hono<{ Variables: { userId: string } }>();
  api.use("*", async (c, next) => {
    const route = c.req.path.slice(`${path}/api`.length);
    let body: unknown;
    if (c.req.method === "POST")
      body = await c.req.raw
        .clone()
        .json()
        .catch(() => undefined);
    requests.push({ method: c.req.method, route, body, apiKey: c.req.header("x-api-key"), at: Date.now() });
    if (opts.apiKey !== undefined && c.req.header("x-api-key") !== opts.apiKey) {
      return fail(c, 401, "api_key_required", "An API key is required (X-API-Key).");
    }
    if (opts.users) {
      const user = sessions.get(getCookie(c, "agentsvc_session") ?? "");
      if (!user && !["/health", "/auth/login", "/auth/me"].includes(route)) {
        return fail(c, 401, "sign_in_required", "Please sign in.");
      }
      c.set("userId", user ?? "");
    } else {
      c.set("userId", "shared");
    }
    await next();
  });

  const own = (userId: string) => [...conversations.values()].filter((v) => v.owner === userId);
  const conv = (userId: string, id: string, firstInput?: string) => {
    const key = `${userId}\u0000${id}`;
    let row = conversations.get(key);
    if (!row) {
      row = { owner: userId, conversationId: id, title: "", updatedAt: tick(), messages: [] };
      conversations.set(key, row);
    }
    if (firstInput !== undefined && !row.title)
      row.title = firstInput.replace(/\s+/g, " ").trim().slice(0, 60);
    return row;
  };

  function sse(run: Run, steps: AsyncGenerator<Step>, reply: Msg, row: Conversation): Response {
    const enc = new TextEncoder();
    let seq = 0;
    let closed = false;
    let finishReason: string | undefined;
    const stream = new ReadableStream<Uint8Array>({
      async start(ctrl) {
        const send = (event: string, data: string, id?: number) => {
          if (closed) return;
          ctrl.enqueue(
            enc.encode(`event: ${event}\n${id !== undefined ? `id: ${id}\n` : ""}data: ${data}\n\n`),
          );
        };
        const chunk = (delta: Record<string, unknown>, kind?: string) =>
          JSON.stringify({
            id: `chatcmpl-${run.threadId}`,
            object: "chat.completion.chunk",
            created: Math.floor(Date.now() / 1000),
            model: opts.modelName ?? "fake-model",
            choices: [{ index: 0, delta, finish_reason: null }],
            ...(kind ? { kind } : {}),
          });
        send("thread", run.threadId);
        run.active = true;
        for await (const step of steps) {
          if (closed) break;
          if ("sleep" in step) await new Promise((r) => setTimeout(r, step.sleep));
          else if ("error" in step) {
            if (reply.content) reply.interrupted = true;
            send("error", JSON.stringify(step.error));
          } else if ("finish" in step) finishReason = step.finish;
          else if ("suspend" in step) {
            run.pending = { ...step.suspend, createdAt: Date.now() };
            send("chunk", chunk({}, "middleware_stop"), ++seq);
          } else {
            const d = step.delta;
            if (typeof d.content === "string") reply.content = (reply.content ?? "") + d.content;
            if (typeof d.reasoning === "string") reply.reasoning = (reply.reasoning ?? "") + d.reasoning;
            if (Array.isArray(d.tool_calls)) {
              for (const tc of d.tool_calls as {
                id?: string;
                function: { name?: string; arguments?: string };
              }[]) {
                if (tc.id) {
                  reply.toolCalls = reply.toolCalls ?? [];
                  reply.toolCalls.push({ id: tc.id, name: tc.function.name ?? "", arguments: "" });
                }
                const last = reply.toolCalls?.at(-1);
                if (last) last.arguments = `${last.arguments as string}${tc.function.arguments ?? ""}`;
              }
            }
            send("chunk", chunk(d), ++seq);
          }
        }
        run.active = false;
        row.updatedAt = tick();
        if (!closed) {
          send("done", JSON.stringify({ status: "completed", ...(finishReason ? { finishReason } : {}) }));
          closed = true;
          ctrl.close();
        }
      },
      cancel() {
        closed = true;
        run.active = false;
        streamClosedAt.set(run.threadId, Date.now());
      },
    });
    return new Response(stream, {
      headers: {
        "Content-Type": "text/event-stream",
        "Cache-Control": "no-cache",
        "X-Thread-Id": run.threadId,
      },
    });
  }

  api.post("/stream", async (c) => {
    if (!(c.req.header("accept") ?? "").includes("text/event-stream"))
      return fail(c, 400, "bad_request", "Accept must be text/event-stream");
    const body = (await c.req.json().catch(() => null)) as {
      input?: unknown;
      conversationId?: unknown;
    } | null;
    if (!body || typeof body.input !== "string" || !body.input.trim())
      return fail(c, 400, "bad_request", "input: expected a non-empty string");
    const userId = c.get("userId");
    const conversationId = typeof body.conversationId === "string" ? body.conversationId : "default";
    // As the real RunManager: a waiting approval blocks new turns, with a developer's wording.
    const waiting = [...runs.values()].find(
      (r) => r.owner === userId && r.conversationId === conversationId && r.pending,
    );
    if (waiting) {
      return fail(
        c,
        409,
        "approval_pending",
        `conversation ${conversationId} has a run awaiting approval (threadId ${waiting.threadId}); approve or reject it first`,
      );
    }
    const row = conv(userId, conversationId, body.input);
    const run: Run = {
      threadId: randomUUID(),
      owner: userId,
      conversationId,
      cancelled: false,
      steers: [],
      active: false,
      pending: null,
    };
    runs.set(run.threadId, run);
    const reply: Msg = { role: "assistant", content: "" };
    row.messages.push({ role: "user", content: body.input }, reply);
    const control = {
      get cancelled() {
        return run.cancelled;
      },
      takeSteers: () => run.steers.splice(0),
    };
    return sse(run, scriptFor(body.input, control), reply, row);
  });

  api.post("/resume", async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as { threadId?: string; decision?: string };
    const run = runs.get(body.threadId ?? "");
    if (!run?.pending) return fail(c, 404, "not_found", "nothing is pending for this threadId");
    if (run.owner !== c.get("userId")) return fail(c, 403, "forbidden", "not your run");
    if (body.decision !== "approve" && body.decision !== "reject")
      return fail(c, 400, "bad_request", "decision: expected approve, reject or edit");
    run.pending = null;
    const row = conv(run.owner, run.conversationId);
    const reply = row.messages.at(-1)!;
    return sse(run, resumeScript(body.decision), reply, row);
  });

  api.get("/pending", (c) => {
    const run = runs.get(c.req.query("threadId") ?? "");
    const pending = run && run.owner === c.get("userId") && run.pending ? run.pending : null;
    return c.json({
      success: true,
      pending: pending && {
        threadId: run!.threadId,
        toolCallId: pending.toolCallId,
        toolName: pending.toolName,
        arguments: pending.arguments,
        allowedDecisions: ["approve", "reject"],
        createdAt: pending.createdAt,
      },
    });
  });

  api.post("/cancel", async (c) => {
    const { threadId } = (await c.req.json()) as { threadId?: string };
    const run = runs.get(threadId ?? "");
    if (!threadId) return fail(c, 400, "bad_request", "threadId: expected a string");
    const cancelled = !!run && run.active && run.owner === c.get("userId");
    if (run && cancelled) run.cancelled = true;
    return c.json({ success: true, cancelled });
  });

  api.post("/steer", async (c) => {
    const { threadId, input } = (await c.req.json()) as { threadId?: string; input?: string };
    const run = runs.get(threadId ?? "");
    const steered = !!run && run.active && run.owner === c.get("userId") && typeof input === "string";
    if (steered) {
      run!.steers.push(input!);
      conv(run!.owner, run!.conversationId).messages.push({ role: "user", content: input! });
    }
    return c.json({ success: true, steered });
  });

  api.post("/clear", async (c) => {
    const { conversationId = "default" } = (await c.req.json()) as { conversationId?: string };
    const userId = c.get("userId");
    if (
      [...runs.values()].some((r) => r.owner === userId && r.conversationId === conversationId && r.pending)
    ) {
      return fail(c, 409, "approval_pending", "a run of this conversation awaits a decision");
    }
    const row = conv(userId, conversationId);
    row.messages = [];
    return c.json({ success: true, cleared: true });
  });

  api.post("/compact", async (c) => {
    const { conversationId = "default", keepRecent = 4 } = (await c.req.json()) as {
      conversationId?: string;
      keepRecent?: number;
    };
    const row = conv(c.get("userId"), conversationId);
    const before = row.messages.length;
    if (!opts.compact || before <= keepRecent)
      return c.json({ success: true, compacted: false, before, after: before });
    row.messages = [
      { role: "assistant", content: "Summary of earlier messages." },
      ...row.messages.slice(-keepRecent),
    ];
    return c.json({ success: true, compacted: true, before, after: row.messages.length });
  });

  api.get("/history", (c) => {
    const id = c.req.query("conversationId") ?? "default";
    const row = conversations.get(`${c.get("userId")}\u0000${id}`);
    const messages = (row?.messages ?? []).map((m) =>
      m.toolCalls
        ? { ...m, toolCalls: m.toolCalls.map((t) => ({ ...t, arguments: safeJson(t.arguments) })) }
        : m,
    );
    return c.json({ success: true, conversationId: id, messages });
  });

  api.get("/info", (c) =>
    c.json({
      success: true,
      agentName: "fake-agent",
      modelName: opts.modelName ?? "fake-model",
      demoModel: true,
      counts: { memories: 0, tools: 2 },
      capabilities: {
        compact: opts.compact === true,
        steer: true,
        cancel: true,
        approvals: true,
        signIn: opts.users !== undefined,
        apiKey: opts.apiKey !== undefined,
      },
    }),
  );

  api.get("/health", (c) => c.json({ success: true, status: "ok", store: "ok" }));

  api.get("/conversations", (c) =>
    c.json({
      success: true,
      conversations: own(c.get("userId"))
        .sort((a, b) => b.updatedAt - a.updatedAt)
        .map((v) => ({
          conversationId: v.conversationId,
          title: v.title,
          updatedAt: v.updatedAt,
          messageCount: v.messages.length,
        })),
    }),
  );
  api.post("/conversations/create", async (c) => {
    const { title } = (await c.req.json().catch(() => ({}))) as { title?: string };
    const row = conv(c.get("userId"), `c-${randomUUID().slice(0, 8)}`);
    if (typeof title === "string") row.title = title.slice(0, 60);
    return c.json({ success: true, conversationId: row.conversationId, title: row.title });
  });
  api.post("/conversations/rename", async (c) => {
    const { conversationId, title } = (await c.req.json()) as { conversationId?: string; title?: string };
    const row = conversations.get(`${c.get("userId")}\u0000${conversationId}`);
    if (!row) return fail(c, 404, "not_found", "no such conversation");
    if (typeof title !== "string") return fail(c, 400, "bad_request", "title: expected a string");
    row.title = title;
    return c.json({ success: true, conversationId, title });
  });
  api.post("/conversations/delete", async (c) => {
    const { conversationId } = (await c.req.json()) as { conversationId?: string };
    const deleted = conversations.delete(`${c.get("userId")}\u0000${conversationId}`);
    if (!deleted) return fail(c, 404, "not_found", "no such conversation");
    return c.json({ success: true, deleted: true });
  });

  api.get("/preferences", (c) =>
    c.json({ success: true, preferences: preferences.get(c.get("userId")) ?? {} }),
  );
  api.post("/preferences/set", async (c) => {
    if (opts.failPreferenceWrites)
      return c.json({ success: false, error: { code: "internal", message: "store down" } }, 500);
    const { key, value } = (await c.req.json()) as { key?: string; value?: unknown };
    if (typeof key !== "string") return fail(c, 400, "bad_request", "key: expected a string");
    const prefs = preferences.get(c.get("userId")) ?? {};
    prefs[key] = value;
    preferences.set(c.get("userId"), prefs);
    return c.json({ success: true });
  });

  api.post("/auth/login", async (c) => {
    const { username, password } = (await c.req.json()) as { username?: string; password?: string };
    const user = opts.users?.find((u) => u.username === username && u.password === password);
    if (!user) return fail(c, 401, "invalid_credentials", "Wrong username or password.");
    const token = randomUUID();
    sessions.set(token, user.username);
    setCookie(c, "agentsvc_session", token, { httpOnly: true, sameSite: "Lax", path: "/" });
    return c.json({ success: true, user: { username: user.username, displayName: user.displayName } });
  });
  api.post("/auth/logout", (c) => {
    sessions.delete(getCookie(c, "agentsvc_session") ?? "");
    deleteCookie(c, "agentsvc_session", { path: "/" });
    return c.json({ success: true });
  });
  api.get("/auth/me", (c) => {
    const user = opts.users?.find((u) => u.username === c.get("userId"));
    return c.json({
      success: true,
      signInRequired: opts.users !== undefined,
      user: user ? { username: user.username, displayName: user.displayName } : null,
    });
  });

  app.route(`${path}/api`, api);

  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) =>
    server.listening ? resolve() : server.once("listening", () => resolve()),
  );
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    pageUrl: `${url}${path}/index.html`,
    requests,
    conversations,
    preferences,
    streamClosedAt,
    holdMainScript() {
      let release!: () => void;
      held = new Promise<void>((resolve) => {
        release = resolve;
      });
      return { release };
    },
    close: () =>
      new Promise<void>((resolve) => {
        if ("closeAllConnections" in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function safeJson(s: unknown): unknown {
  if (typeof s !== "string") return s;
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}
