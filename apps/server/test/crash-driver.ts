// Drives the crash test: a server child process (killed with SIGKILL by fault points), and a
// client that sends signed http gateway events in order, retrying across restarts, approves
// requests, and reads each thread's outbox.
import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import { signatureHeaders } from "@agentsvc/gateway-http";

const child = resolve(import.meta.dirname, "fixtures/crash-child.mjs");
export const crashFixture = resolve(import.meta.dirname, "fixtures/crash");

export class ServerProcess {
  #proc: ChildProcess | undefined;
  exited: Promise<NodeJS.Signals | number | null> = Promise.resolve(null);
  stderr = "";

  constructor(
    readonly root: string,
    readonly port: number,
    readonly env: Record<string, string>,
    /** The project the child serves. Default the crash fixture. */
    readonly fixture: string = crashFixture,
  ) {}

  get alive(): boolean {
    return this.#proc !== undefined && this.#proc.exitCode === null && this.#proc.signalCode === null;
  }

  /** Starts the server (with `AGENTSVC_FAULT=<fault>` when given) and waits until it serves. */
  async start(fault?: string): Promise<void> {
    const proc = spawn(process.execPath, [child, this.fixture, this.root, String(this.port)], {
      env: { ...process.env, ...this.env, ...(fault ? { AGENTSVC_FAULT: fault } : { AGENTSVC_FAULT: "" }) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.#proc = proc;
    this.exited = new Promise((r) => proc.once("exit", (code, signal) => r(signal ?? code)));
    proc.stderr?.on("data", (c) => {
      this.stderr = (this.stderr + String(c)).slice(-4000);
    });
    await new Promise<void>((ready, fail) => {
      // Bounded well inside the 60 s test timeout: a child start at load 25 took over 20 s.
      const timer = setTimeout(() => fail(new Error(`server did not start in 45 s: ${this.stderr}`)), 45_000);
      let out = "";
      proc.stdout?.on("data", (c) => {
        out += String(c);
        if (out.includes("READY")) {
          clearTimeout(timer);
          ready();
        }
      });
      // A fault can fire during start (recovery work): that is a start that ended.
      proc.once("exit", () => {
        clearTimeout(timer);
        ready();
      });
    });
  }

  /** Waits for the process to end by itself (a fault point), at most `ms`. */
  async waitForExit(ms: number): Promise<NodeJS.Signals | number | null | "timeout"> {
    return Promise.race([this.exited, new Promise<"timeout">((r) => setTimeout(() => r("timeout"), ms))]);
  }

  async stop(): Promise<NodeJS.Signals | number | null> {
    this.#proc?.kill("SIGTERM");
    return this.exited;
  }

  kill(): void {
    this.#proc?.kill("SIGKILL");
  }
}

export class HooksClient {
  constructor(
    readonly base: string,
    readonly secret: string,
  ) {}

  async request(method: "GET" | "POST", path: string, body?: unknown): Promise<Response> {
    const raw = body === undefined ? undefined : JSON.stringify(body);
    const bytes = new TextEncoder().encode(raw ?? `${method} ${path}`);
    return fetch(`${this.base}${path}`, {
      method,
      headers: {
        ...signatureHeaders(this.secret, bytes),
        ...(raw ? { "content-type": "application/json" } : {}),
      },
      ...(raw ? { body: raw } : {}),
      signal: AbortSignal.timeout(5_000),
    });
  }

  /** True once the event is recorded (202) or known (200); false when the server is unreachable or failed. */
  async send(event: { id: string; thread: string; text: string }): Promise<boolean> {
    try {
      const res = await this.request("POST", "/gateways/hooks/events", event);
      await res.body?.cancel();
      return res.status === 200 || res.status === 202;
    } catch {
      return false;
    }
  }

  async messages(thread: string): Promise<{ seq: number; kind: string; text: string; requestId?: string }[]> {
    const res = await this.request("GET", `/gateways/hooks/threads/${thread}/messages?after=0`);
    if (!res.ok) throw new Error(`outbox read failed: ${res.status}`);
    return (
      (await res.json()) as { messages: { seq: number; kind: string; text: string; requestId?: string }[] }
    ).messages;
  }

  /** "decided" when approved now or before; "retry" when the server could not take it. */
  async approve(requestId: string): Promise<"decided" | "retry"> {
    try {
      const res = await this.request("POST", `/interactions/${requestId}/decisions`, { decision: "approve" });
      await res.body?.cancel();
      return res.status === 200 || res.status === 409 ? "decided" : "retry";
    } catch {
      return "retry";
    }
  }
}
