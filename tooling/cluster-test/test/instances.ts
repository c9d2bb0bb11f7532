// Server processes of one project over one PostgreSQL, and clients for what they serve: the http
// gateway (signed events, pulled replies) and the page's API (sign-in cookie, SSE turns).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { signatureHeaders } from "@agentsvc/gateway-http";
import { freePort } from "@agentsvc/testkit";

const child = resolve(import.meta.dirname, "fixtures/cluster-child.mjs");
export const fixture = resolve(import.meta.dirname, "fixtures/cluster");

export class Instance {
  readonly root = mkdtempSync(join(tmpdir(), "agentsvc-cluster-"));
  readonly lines: string[] = [];
  #proc: ChildProcess | undefined;
  /** The last 4,000 characters the process wrote to stderr. */
  #stderr = "";
  exited: Promise<NodeJS.Signals | number | null> = Promise.resolve(null);
  port = 0;

  constructor(
    readonly name: string,
    readonly env: Record<string, string>,
    /** The project directory it serves (default the cluster fixture). */
    readonly project = fixture,
  ) {
    // Each instance has its own app root (build output); adapters resolve as from an installed app.
    symlinkSync(resolve(import.meta.dirname, "../node_modules"), join(this.root, "node_modules"), "dir");
  }

  get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get alive(): boolean {
    return this.#proc !== undefined && this.#proc.exitCode === null && this.#proc.signalCode === null;
  }

  /** Log lines (pino JSON) whose `msg` matches. */
  logged(pattern: RegExp): boolean {
    return this.lines.some((l) => pattern.test(l));
  }

  async start(): Promise<void> {
    this.port = await freePort();
    const proc = spawn(process.execPath, [child, this.project, this.root, String(this.port)], {
      env: { ...process.env, ...this.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.#proc = proc;
    this.exited = new Promise((r) => proc.once("exit", (code, signal) => r(signal ?? code)));
    let stderr = "";
    proc.stderr?.on("data", (c) => {
      stderr = (stderr + String(c)).slice(-4000);
      this.#stderr = stderr;
    });
    let pending = "";
    proc.stdout?.on("data", (c) => {
      pending += String(c);
      const parts = pending.split("\n");
      pending = parts.pop() ?? "";
      this.lines.push(...parts);
    });
    await new Promise<void>((ready, fail) => {
      const timer = setTimeout(
        () => fail(new Error(`${this.name} did not start in 30 s: ${stderr}`)),
        30_000,
      );
      const check = setInterval(() => {
        if (this.lines.includes("READY")) {
          clearInterval(check);
          clearTimeout(timer);
          ready();
        }
      }, 20);
      proc.once("exit", (code, signal) => {
        clearInterval(check);
        clearTimeout(timer);
        fail(new Error(`${this.name} exited during start (${signal ?? code}): ${stderr}`));
      });
    });
  }

  kill(): Promise<NodeJS.Signals | number | null> {
    this.#proc?.kill("SIGKILL");
    return this.exited;
  }

  async stop(): Promise<void> {
    // CLUSTER_LOG_DUMP=/tmp/x keeps each instance's log as /tmp/x-<name>.log (with CLUSTER_LOG_LEVEL=debug).
    const dump = process.env.CLUSTER_LOG_DUMP;
    if (dump) {
      writeFileSync(`${dump}-${this.name}.log`, this.lines.join("\n"));
      // What a process that died wrote last (an uncaught error is not a log line).
      writeFileSync(`${dump}-${this.name}.stderr`, this.#stderr);
    }
    if (this.alive) {
      this.#proc?.kill("SIGTERM");
      const timer = setTimeout(() => this.#proc?.kill("SIGKILL"), 10_000);
      await this.exited;
      clearTimeout(timer);
    }
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** The http gateway `hooks` of one instance. */
export class Hooks {
  constructor(
    readonly instance: Instance,
    readonly secret: string,
  ) {}

  async request(method: "GET" | "POST", path: string, body?: unknown): Promise<Response> {
    const raw = body === undefined ? undefined : JSON.stringify(body);
    const bytes = new TextEncoder().encode(raw ?? `${method} ${path}`);
    return fetch(`${this.instance.base}${path}`, {
      method,
      headers: {
        ...signatureHeaders(this.secret, bytes),
        ...(raw ? { "content-type": "application/json" } : {}),
      },
      ...(raw ? { body: raw } : {}),
      signal: AbortSignal.timeout(10_000),
    });
  }

  /** True once the event is recorded (202) or known (200). */
  async send(event: { id: string; thread: string; text: string }): Promise<boolean> {
    try {
      const res = await this.request("POST", "/gateways/hooks/events", event);
      await res.body?.cancel();
      return res.status === 200 || res.status === 202;
    } catch {
      return false;
    }
  }

  async messages(thread: string): Promise<{ seq: number; kind: string; text: string }[]> {
    const res = await this.request("GET", `/gateways/hooks/threads/${thread}/messages?after=0`);
    if (!res.ok) throw new Error(`outbox read failed on ${this.instance.name}: ${res.status}`);
    return ((await res.json()) as { messages: { seq: number; kind: string; text: string }[] }).messages;
  }
}

/** The page's API on one instance, signed in with a cookie that any instance accepts. */
export class Page {
  constructor(
    readonly instance: Instance,
    readonly cookie: string,
  ) {}

  static async signIn(instance: Instance, username: string, password: string): Promise<string> {
    const res = await fetch(`${instance.base}/chat/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username, password }),
    });
    if (!res.ok) throw new Error(`sign-in failed on ${instance.name}: ${res.status} ${await res.text()}`);
    const cookie = res.headers.get("set-cookie")?.split(";")[0];
    if (!cookie) throw new Error("no session cookie");
    return cookie;
  }

  post(path: string, body: unknown): Promise<Response> {
    return fetch(`${this.instance.base}/chat/api${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: this.cookie },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(20_000),
    });
  }

  /** A turn as SSE: the thread id (from the first event) and the raw stream text once it ends. */
  async stream(
    path: string,
    body: unknown,
  ): Promise<{ threadId: string | undefined; text: string; status: number }> {
    const res = await this.post(path, body);
    const text = await res.text();
    const threadId = res.headers.get("x-thread-id") ?? /"threadId":"([^"]+)"/.exec(text)?.[1];
    return { threadId, text, status: res.status };
  }

  /**
   * A turn as SSE, read as it arrives: `seen(marker)` resolves once the text so far holds `marker`
   * (the run got that far; rejects if the stream ends without it), `done` with the whole text.
   */
  async streaming(
    path: string,
    body: unknown,
  ): Promise<{ seen(marker: string): Promise<void>; done: Promise<{ text: string; status: number }> }> {
    const res = await this.post(path, body);
    let text = "";
    let ended = false;
    const waiting: { marker: string; found(): void; missed(err: Error): void }[] = [];
    const check = () => {
      for (const w of waiting.splice(0)) {
        if (text.includes(w.marker)) w.found();
        else if (ended) w.missed(new Error(`the stream ended without ${w.marker}:\n${text}`));
        else waiting.push(w);
      }
    };
    const done = (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const piece of res.body ?? []) {
          text += decoder.decode(piece, { stream: true });
          check();
        }
      } finally {
        ended = true;
        check();
      }
      return { text, status: res.status };
    })();
    return {
      seen: (marker) =>
        new Promise<void>((found, missed) => {
          waiting.push({ marker, found, missed });
          check();
        }),
      done,
    };
  }
}
