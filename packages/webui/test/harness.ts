// Test harness: a real ChatDb file in a temp dir, a real RunManager on the demo model, the ChatUi
// app mounted at /chat/api and served over real HTTP on 127.0.0.1 (port 0).
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AgentDefinition,
  type DemoStep,
  RunManager,
  type RunManagerOptions,
  type TranscribeAttachment,
  defineAgent,
  demoSummary,
} from "@agentsvc/agent-core";
import { type AccountConfig, type BlobOptions, ChatDb } from "@agentsvc/chat-store";
import { type ServerType, serve } from "@hono/node-server";
import { Hono } from "hono";
import pino from "pino";
import { type ChatUiOptions, agentInfoOf, apiPrefix, createChatUi } from "../src/index.js";

export const APPROVAL_TOOL = "delete_file";

/** An agent on the demo model with a plain tool and an approval-gated one. */
export function testAgent(
  extra: { script?: DemoStep[]; tokenDelayMs?: number; summary?: boolean } = {},
): AgentDefinition {
  return defineAgent({
    name: "tester",
    model: {
      provider: "demo",
      ...(extra.script ? { script: extra.script } : {}),
      ...(extra.tokenDelayMs ? { tokenDelayMs: extra.tokenDelayMs } : {}),
    },
    memory: extra.summary ? { summaryProvider: "demo", summaryModel: "demo-summary" } : {},
    tools: [
      {
        kind: "tool",
        name: "lookup",
        description: "Looks a word up.",
        input: {
          type: "json-schema",
          schema: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
        },
        execute: (input: { word: string }) => `definition of ${input.word}`,
      },
      {
        kind: "tool",
        name: APPROVAL_TOOL,
        description: "Deletes a file (needs approval).",
        input: {
          type: "json-schema",
          schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
        },
        execute: (input: { path: string }) => `deleted ${input.path}`,
        needsApproval: true,
      },
    ],
  });
}

export interface HarnessOptions {
  users?: AccountConfig[];
  env?: Record<string, string>;
  apiKey?: string;
  apiKeyEnvVar?: string;
  now?: () => number;
  agent?: AgentDefinition;
  /** The run manager's model in place of the agent's (a test that watches what the model sends). */
  model?: RunManagerOptions["model"];
  /** Reuse a data directory (restart tests). */
  dir?: string;
  /** SQLite busy timeout of the store (lock tests set one longer than any request may take). */
  busyTimeoutMs?: number;
  /** The store's blob cap, retention and upload hold. */
  blobs?: BlobOptions;
  /** The run manager's transcriber (the server's for media.transcribe). */
  transcribe?: TranscribeAttachment;
  chatUi?: Partial<ChatUiOptions>;
}

export interface Harness {
  dir: string;
  base: string;
  db: ChatDb;
  runs: RunManager;
  client(): Client;
  close(opts?: { keepDir?: boolean }): Promise<void>;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "webui-test-"));
  const db = ChatDb.open({
    appRoot: dir,
    path: "./data/chat.db",
    ...(options.now ? { now: options.now } : {}),
    ...(options.busyTimeoutMs !== undefined ? { busyTimeoutMs: options.busyTimeoutMs } : {}),
    ...(options.blobs ? { blobs: options.blobs } : {}),
  });
  const silent = pino({ level: "silent" });
  if (options.users) await db.seedAccounts(options.users, options.env ?? {}, silent, { iterations: 1000 });
  const agent = options.agent ?? testAgent();
  const summarize = agent.memory?.summaryModel
    ? async (m: Parameters<typeof demoSummary>[0]) => demoSummary(m)
    : undefined;
  const memory = db.createMemory({
    canSummarize: summarize !== undefined,
    ...(summarize ? { summarize } : {}),
  });
  const runs = new RunManager({
    agent,
    memory,
    runStore: db.runStore,
    ...(options.model ? { model: options.model } : {}),
    ...(options.transcribe ? { transcribe: options.transcribe } : {}),
  });
  await runs.ready();
  const entry = {
    path: "/chat",
    ...(options.users ? { users: options.users } : {}),
    ...(options.apiKeyEnvVar ? { apiKeyEnvVar: options.apiKeyEnvVar } : {}),
  };
  const ui = createChatUi({
    entry,
    runs,
    db,
    memory,
    agent: agentInfoOf(runs.describe()),
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    logger: silent,
    ...options.chatUi,
  });
  const app = new Hono().route(apiPrefix(entry.path), ui);
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}/chat/api`;
  return {
    dir,
    base,
    db,
    runs,
    client: () => new Client(base),
    async close(opts = {}) {
      await runs.drain(2000);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      db.close();
      if (!opts.keepDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A harness with accounts alice (password "pa") and bob ("pb"), each signed in on a client of their own. */
export async function startTwoUsers(): Promise<{ h: Harness; alice: Client; bob: Client }> {
  const h = await startHarness({
    users: [
      { username: "alice", displayName: "Alice", passwordEnvVar: "PA" },
      { username: "bob", displayName: "Bob", passwordEnvVar: "PB" },
    ],
    env: { PA: "pa", PB: "pb" },
  });
  const alice = h.client();
  const bob = h.client();
  for (const [client, name, password] of [
    [alice, "alice", "pa"],
    [bob, "bob", "pb"],
  ] as const) {
    const login = await client.login(name, password);
    if (login.status !== 200) throw new Error(`${name} could not sign in (${login.status})`);
  }
  return { h, alice, bob };
}

export interface Reply {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are inspected freely
  body: any;
  text: string;
}

/** A browser-like client: keeps the session cookie it is given, sends JSON. */
export class Client {
  cookie: string | undefined;
  headers: Record<string, string> = {};
  constructor(readonly base: string) {}

  async send(
    method: string,
    path: string,
    init: { json?: unknown; raw?: string | Uint8Array; headers?: Record<string, string> } = {},
  ): Promise<Reply> {
    const headers: Record<string, string> = { ...this.headers, ...(init.headers ?? {}) };
    if (this.cookie) headers.cookie = this.cookie;
    let body: string | Uint8Array | undefined;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers["content-type"] ??= "application/json";
    } else if (init.raw !== undefined) body = init.raw;
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers,
      body,
      signal: AbortSignal.timeout(15_000),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const [name, value] = (pair ?? "").split("=");
      if (name === "agentsvc_session") this.cookie = value ? `agentsvc_session=${value}` : undefined;
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  get(path: string, headers?: Record<string, string>): Promise<Reply> {
    return this.send("GET", path, { headers });
  }

  post(path: string, json: unknown = {}, headers?: Record<string, string>): Promise<Reply> {
    return this.send("POST", path, { json, headers });
  }

  async login(username: string, password: string): Promise<Reply> {
    return this.post("/auth/login", { username, password });
  }
}

export interface SseEvent {
  event: string | undefined;
  data: string;
  id: string | undefined;
}

/** Reads a whole SSE response with a real SSE parser. `onEvent` sees each event as it arrives. */
export async function readSse(
  res: Response,
  onEvent?: (e: SseEvent) => void | Promise<void>,
): Promise<SseEvent[]> {
  const { createParser } = await import("eventsource-parser");
  const events: SseEvent[] = [];
  const queue: SseEvent[] = [];
  const parser = createParser({
    onEvent: (e) => {
      const ev = { event: e.event, data: e.data, id: e.id };
      events.push(ev);
      queue.push(ev);
    },
  });
  if (!res.body) return events;
  const decoder = new TextDecoder();
  for await (const part of res.body as unknown as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(part, { stream: true }));
    // Shift first: `onEvent?.(queue.shift())` would skip the shift when there is no callback.
    for (let e = queue.shift(); e !== undefined; e = queue.shift()) await onEvent?.(e);
  }
  return events;
}

/** POSTs JSON asking for an event stream; the caller reads the body. */
export function postStream(
  base: string,
  path: string,
  json: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
    body: JSON.stringify(json),
    signal: AbortSignal.timeout(15_000),
  });
}
