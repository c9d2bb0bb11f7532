// Issue #22 item 1: a body without Content-Length (chunked) is counted while it streams and refused
// at the limit, before anything buffers it whole and before any signature check. A real server
// process (TypeScript sources through vite-node) with every webhook gateway configured gets 64 MiB
// chunked bodies on each webhook route and on the http gateway's events route; its own RSS,
// sampled inside it, grows by less than 32 MB, each answer is 413 with the connection closed, and
// the next normal request is served. Red before the fix: +230 MB (whatsapp), +67 MB (teams),
// +84 MB (github). The adapters load from their built dist/, as in every server test.
// Once the 413 is out, the drain lets Node's parser skip the rest without copying it into Buffers
// (agent-core node-parser-skip.ts): read and dropped through 'data' events, 64 MiB of garbage waited
// for V8's external-memory trigger (+0-46 MB on a run's first routes, CI red at +37 MB).
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { requestSignatureHeaders } from "@agentsvc/gateway-http";
import { rawPost } from "@agentsvc/raw-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const serverDir = resolve(import.meta.dirname, "..");
const MiB = 1024 * 1024;
const HOOKS_SECRET = "flood-secret";
const ENV = {
  HOOKS_SECRET,
  WA_ACCESS_TOKEN: "wa-token",
  WA_PHONE_NUMBER_ID: "1000",
  WA_APP_SECRET: "wa-secret",
  WA_VERIFY_TOKEN: "wa-verify",
  TEAMS_APP_ID: "00000000-0000-0000-0000-000000000001",
  TEAMS_APP_PASSWORD: "teams-password",
  TW_ACCOUNT_SID: "AC00000000000000000000000000000000",
  TW_AUTH_TOKEN: "tw-token",
  TW_FROM: "+15550000000",
  GH_TOKEN: "gh-token",
  GH_WEBHOOK_SECRET: "gh-secret",
  GH_BOT_NAME: "agentsvc-bot",
};

/** A project root with the fixture and the adapters installed (symlinked), as an app would have them. */
function projectRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "agentsvc-flood-"));
  cpSync(join(import.meta.dirname, "fixtures/webhook-flood"), root, { recursive: true });
  const modules = join(root, "node_modules");
  mkdirSync(join(modules, "@agentsvc"), { recursive: true });
  const own = join(serverDir, "node_modules");
  for (const name of readdirSync(own)) {
    if (name === "@agentsvc" || name.startsWith(".")) continue;
    symlinkSync(realpathSync(join(own, name)), join(modules, name), "dir");
  }
  // The server's @agentsvc packages, the four webhook adapters among them (its devDependencies).
  for (const name of readdirSync(join(own, "@agentsvc")))
    symlinkSync(realpathSync(join(own, "@agentsvc", name)), join(modules, "@agentsvc", name), "dir");
  return root;
}

class FloodServer {
  #proc: ChildProcess | undefined;
  #lines: string[] = [];
  #waiters: ((line: string) => void)[] = [];
  port = 0;
  stderr = "";

  async start(root: string): Promise<void> {
    // vite-node ships with vitest; it runs the server from its sources with the workspace aliases.
    const vitest = createRequire(import.meta.url).resolve("vitest/package.json");
    const cli = resolve(createRequire(vitest).resolve("vite-node/package.json"), "../vite-node.mjs");
    // vite-node's CLI does not read the config's `test.server.deps`: without this it transformed
    // every workspace package's built dist (Node loads them itself in every test worker). The
    // child's start, load 23: 4.0-4.2 -> 1.9-2.1 CPU-s, ready after 6.5-7.4 -> 2.5-5.3 s (#45.6).
    const external = "--options.deps.external=/(?:packages|apps|tooling)/[^/]+/dist/";
    const proc = spawn(
      process.execPath,
      ["--expose-gc", cli, external, "--config", "vitest.config.ts", "test/flood-child.ts", root],
      { cwd: serverDir, env: { ...process.env, FLOOD_ENV: JSON.stringify(ENV) }, stdio: "pipe" },
    );
    this.#proc = proc;
    proc.stderr?.on("data", (c) => (this.stderr = (this.stderr + String(c)).slice(-4000)));
    let buffered = "";
    proc.stdout?.on("data", (c) => {
      buffered += String(c);
      for (let i = buffered.indexOf("\n"); i >= 0; i = buffered.indexOf("\n")) {
        const line = buffered.slice(0, i);
        buffered = buffered.slice(i + 1);
        const waiter = this.#waiters.shift();
        if (waiter) waiter(line);
        else this.#lines.push(line);
      }
    });
    const ready = await this.#next(60_000);
    const port = /^READY (\d+)$/.exec(ready)?.[1];
    if (!port) throw new Error(`server did not start: ${ready} ${this.stderr}`);
    this.port = Number(port);
  }

  #next(ms: number): Promise<string> {
    const line = this.#lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    return new Promise((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`no answer from the server: ${this.stderr}`)), ms);
      this.#waiters.push((l) => {
        clearTimeout(timer);
        ok(l);
      });
    });
  }

  /** The server's RSS: the peak since the last ask and now (bytes). */
  async rss(): Promise<{ peak: number; now: number }> {
    this.#proc?.stdin?.write("rss\n");
    const m = /^RSS (\d+) (\d+)$/.exec(await this.#next(10_000));
    if (!m) throw new Error("bad RSS answer");
    return { peak: Number(m[1]), now: Number(m[2]) };
  }

  async stop(): Promise<void> {
    const proc = this.#proc;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once("exit", r));
    proc.stdin?.end();
    const timer = setTimeout(() => proc.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

// The Accept MCP's transport asks for (a wrong one is refused with 406 before the body is read).
const JSON_TYPE = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/**
 * A chunked body (no Content-Length) of `total` bytes, as fast as the server takes it, reading its
 * answer all along: the server's close must not reset the connection before the 413 is read (it
 * lingers, reading and discarding).
 */
const floodChunked = (path: string, total: number) =>
  rawPost(server.port, { path, bytes: total, framing: "chunked", headers: JSON_TYPE, readAfter: 0 });

/**
 * A body of `total` bytes (chunked, or with its Content-Length) read only once it is all written and
 * had time to reach the server: the server answered long before the client read, and only a server
 * that keeps reading after its 413 (instead of closing, which resets the connection and drops the
 * unread answer) is heard.
 */
const sendThenRead = (path: string, total: number, framing: "chunked" | "length" = "chunked") =>
  rawPost(server.port, { path, bytes: total, framing, headers: JSON_TYPE, readDelayMs: 300 });

/**
 * 64 MiB chunked to `path`, all of it written whatever the server answers (a client that ignores an
 * early answer): answered 413, the connection closed, the server's RSS grown by < 32 MB.
 */
async function refusedWithin32MB(path: string): Promise<void> {
  const before = await server.rss();
  const flood = await rawPost(server.port, {
    path,
    bytes: 64 * MiB,
    framing: "chunked",
    headers: JSON_TYPE,
    readAfter: 0,
    halfOpen: true,
  });
  const after = await server.rss();
  expect(flood.status).toBe(413);
  expect(flood.closed).toBe(true);
  expect(flood.sent).toBe(64 * MiB);
  expect(after.peak - before.now).toBeLessThan(32 * MiB);
}

const ROUTES = [
  "/webhooks/whatsapp",
  "/webhooks/teams",
  "/webhooks/twilio",
  "/webhooks/github",
  "/gateways/hooks/events",
];

let root: string;
const server = new FloodServer();
beforeAll(async () => {
  root = projectRoot();
  await server.start(root);
  // Warm every route once (first-use allocations are not what is measured).
  for (const path of ROUTES)
    await fetch(`http://127.0.0.1:${server.port}${path}`, { method: "POST", body: "{}" });
}, 90_000);
afterAll(async () => {
  await server.stop();
  rmSync(root, { recursive: true, force: true });
});

describe("a chunked body past the limit (no Content-Length)", () => {
  it.each(ROUTES)(
    "%s: 64 MiB is refused with 413 and the connection closed, the server's RSS grows by < 32 MB, the next request is served",
    async (path) => {
      await refusedWithin32MB(path);
      // The same route still answers a small request itself (refused unsigned, not 413).
      const next = await fetch(`http://127.0.0.1:${server.port}${path}`, { method: "POST", body: "{}" });
      expect(next.status).toBe(401);
    },
    60_000,
  );

  // The other routes that read a body: the agent route (and the chat page's turns, same reader)
  // stopped at the limit but kept the connection and drained all 64 MiB (+61 MB RSS before its
  // 413 closed the connection); the chat page's own reader and MCP were bounded already.
  it.each(["/agent/invoke", "/chat/api/invoke", "/chat/api/conversations/create", "/mcp"])(
    "%s: 64 MiB chunked is refused with 413 and the connection closed, the server's RSS grows by < 32 MB",
    async (path) => {
      await refusedWithin32MB(path);
    },
    60_000,
  );

  // /mcp and the chat page's own reader (conversations/create) answered 413 keeping the connection
  // alive and left the request paused: the server stopped reading, the client's writes stalled,
  // and the connection ended only when the 2 s linger gave up on it, resetting the client (EPIPE).
  it.each([...ROUTES, "/agent/invoke", "/chat/api/invoke", "/chat/api/conversations/create", "/mcp"])(
    "%s: a client still sending at the 413 is told connection: close and its own close is read, not reset",
    async (path) => {
      const flood = await floodChunked(path, 64 * MiB);
      expect(flood.status).toBe(413);
      expect(flood.head).toMatch(/^connection: close$/im);
      expect(flood.ended).toBe(true);
      expect(flood.error).toBeUndefined();
    },
    60_000,
  );

  // A client that writes its whole body before it reads (many do) was answered with a reset and
  // never saw the 413: Node closed the socket right after the answer with the body unread.
  it.each(["/webhooks/whatsapp", "/gateways/hooks/events", "/agent/invoke"])(
    "%s: a client that reads only after sending 4 MiB still gets the 413, not a reset",
    async (path) => {
      const answer = await sendThenRead(path, 4 * MiB);
      expect(answer).toMatchObject({ status: 413, closed: true });
      expect(answer.error).toBeUndefined();
    },
    60_000,
  );

  it("the http gateway still records a signed event after the floods", async () => {
    const body = JSON.stringify({ id: "ev-after-flood", thread: "t-1", text: "hello" });
    const res = await fetch(`http://127.0.0.1:${server.port}/gateways/hooks/events`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...requestSignatureHeaders(HOOKS_SECRET, { method: "POST", target: "/gateways/hooks/events", body }),
      },
      body,
    });
    expect(res.status).toBe(202);
  });
});

describe("a Content-Length past the limit", () => {
  // The routes answered a declared length over the limit before their body reader ran; only the
  // server's 2 s lingering close read the rest (webhooks.test.ts has the route without it: EPIPE).
  // Now webhook-kit's reader refuses it and drains it, as a chunked body past the limit.
  it.each(["/webhooks/whatsapp", "/gateways/hooks/events"])(
    "%s: a client that declares 7 MiB and reads only after sending them gets the 413, not a reset",
    async (path) => {
      const answer = await sendThenRead(path, 7 * MiB, "length");
      expect(answer).toMatchObject({ status: 413, closed: true });
      expect(answer.error).toBeUndefined();
    },
    60_000,
  );
});

describe("a Content-Length past the limit, sent for longer than the server's 2 s linger", () => {
  // These routes answered a declared length over their limit from a check in front of their
  // reader and left the body unread: only the server's 2 s lingering close read on, and a client
  // still sending after it was reset (EPIPE) without reading the 413. They refuse through
  // agent-core's drain now, which reads the whole body (up to 64 MiB or 5 s) before closing.
  const json = { "content-type": "application/json" };
  it.each([
    ["/agent/invoke", json, /"code":"too_large"/],
    ["/chat/api/conversations/create", json, /"code":"too_large"/],
    ["/mcp", { ...json, accept: "application/json, text/event-stream" }, /"code":"body_too_large"/],
    [
      "/chat/api/files",
      { "content-type": "image/png", "x-file-name": "huge.png" },
      /"code":"file_too_large"/,
    ],
  ] as const)(
    "%s: a client that declares 7 MiB, sends them over 3 s and reads only then gets the 413",
    async (path, headers, code) => {
      // Spread over 3 s, each 64 KiB piece at its due time; read once all is written and had time to
      // reach the server. Its 2 s lingering close gives up on a client still sending, resetting it:
      // only a drain that reads the whole body lets this client read the answer.
      const answer = await rawPost(server.port, {
        path,
        bytes: 7 * MiB,
        headers,
        spreadMs: 3_000,
        readDelayMs: 300,
      });
      expect(answer.error).toBeUndefined();
      expect(answer.status).toBe(413);
      expect(answer.body).toMatch(code);
    },
    60_000,
  );

  it("/chat/api/files: a picture over the limit uploaded with fetch gets the page's file_too_large answer, not a network error", async () => {
    const res = await fetch(`http://127.0.0.1:${server.port}/chat/api/files`, {
      method: "POST",
      headers: { "content-type": "image/png", "x-file-name": "huge.png" },
      body: Buffer.alloc(7 * MiB, 1),
    });
    expect(res.status).toBe(413);
    expect(res.headers.get("connection")).toBe("close");
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error).toEqual({
      code: "file_too_large",
      message: "the file (7 MB) is too large; the limit is 1 MB",
    });
  }, 60_000);
});
