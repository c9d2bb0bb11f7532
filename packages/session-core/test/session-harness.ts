// Builds a real GatewaySession over a real RunManager (demo model) and a real ChatDb file.
import { rmSync } from "node:fs";
import {
  type AgentDefinition,
  type DemoStep,
  defineAgent,
  defineTool,
  type GatewaySessionConfig,
  RunManager,
  type RunLogger,
  type StartRunInput,
  type RunHandle,
} from "@agentsvc/agent-core";
import { ChatDb } from "@agentsvc/chat-store";
import { afterEach } from "vitest";
import {
  type Coordination,
  createGatewaySession,
  type GatewayEntryRef,
  type GatewaySession,
  GatewayRegistry,
  type GatewaySessionOptions,
  type OutboxOptions,
} from "../src/index.js";
import { createMockGateway, type MockGateway, type MockGatewayOptions } from "../src/testing/index.js";
import { testTempDir } from "../../../tooling/vitest.temp-dirs.js";
import { captureLogs } from "./helpers.js";

/** Tool calls that wait until the test opens them (ignoring cancel, so cancel lands at the next checkpoint). */
export class Gates {
  readonly calls: string[] = [];
  #open: (() => void)[] = [];
  #waiting: (() => void)[] = [];
  #autoOpen = false;

  wait(note: string): Promise<void> {
    this.calls.push(note);
    if (this.#autoOpen) return Promise.resolve();
    return new Promise((resolve) => {
      this.#open.push(resolve);
      for (const w of this.#waiting.splice(0)) w();
    });
  }

  /** Opens the oldest waiting call, waiting for one to arrive if none is there yet. */
  async openNext(): Promise<void> {
    while (this.#open.length === 0) await new Promise<void>((r) => this.#waiting.push(r));
    this.#open.shift()?.();
  }

  openAll(): void {
    this.#autoOpen = true;
    for (const o of this.#open.splice(0)) o();
  }
}

const noteInput = {
  type: "json-schema" as const,
  schema: { type: "object", properties: { note: { type: "string" } }, required: ["note"] },
};

export function testAgent(
  gates: Gates,
  executed: string[],
  gatewaySession?: GatewaySessionConfig,
  channel?: string,
  tokenDelayMs?: number,
) {
  return defineAgent({
    name: "root",
    model: { provider: "demo", ...(tokenDelayMs ? { tokenDelayMs } : {}) },
    tools: [
      defineTool({
        name: "wait_gate",
        description: "Waits until the test opens the gate.",
        input: noteInput,
        execute: async (input: { note: string }) => {
          await gates.wait(input.note);
          return "opened";
        },
      }),
      defineTool({
        name: "slow_delete",
        description: "Deletes slowly: needs approval, then waits until the test opens the gate.",
        input: noteInput,
        needsApproval: true,
        execute: async (input: { note: string }) => {
          await gates.wait(input.note);
          executed.push(input.note);
          return "deleted";
        },
      }),
      defineTool({
        name: "delete_file",
        description: "Deletes a file (needs approval).",
        input: noteInput,
        needsApproval: true,
        execute: async (input: { note: string }) => {
          executed.push(input.note);
          return "deleted";
        },
      }),
    ],
    ...(gatewaySession ? { gatewaySession } : {}),
    ...(channel ? { approvals: { channel } } : {}),
  });
}

/** A RunManager that counts the turns it starts. */
export class CountingRunManager extends RunManager {
  readonly starts: StartRunInput[] = [];
  override start(input: StartRunInput): RunHandle {
    const handle = super.start(input);
    this.starts.push(input);
    return handle;
  }
}

export interface Rig {
  dir: string;
  db: ChatDb;
  runs: CountingRunManager;
  session: GatewaySession;
  gateway: MockGateway;
  registry: GatewayRegistry;
  gates: Gates;
  executed: string[];
  logs: ReturnType<typeof captureLogs>;
  agent: AgentDefinition;
  /** Stops the session (waiting up to `drainMs` for running turns) and closes the store. */
  close(drainMs?: number): Promise<void>;
}

export interface RigOptions {
  dir?: string;
  gatewaySession?: GatewaySessionConfig;
  gateway?: MockGatewayOptions;
  /** The demo model's pause before each streamed token (default none). */
  tokenDelayMs?: number;
  /** The demo model's steps, model call by model call (default: its own script, tools as asked for). */
  script?: DemoStep[];
  extraGateways?: MockGateway[];
  channel?: string;
  gates?: Gates;
  /** Seconds before an open approval request expires. */
  expiresAfterSeconds?: number;
  /** With `coordination`: the period of the sweep for work nobody runs (default 100 ms). */
  sweepMs?: number;
  /** With `coordination`: how long an idle thread stays held here (the session's threadHoldMs). */
  threadHoldMs?: number;
  /** With `coordination`: the most threads held here at once (the session's maxHeldThreads). */
  maxHeldThreads?: number;
  /** The session's environment (default: the process's). */
  env?: Record<string, string>;
  /** Shared with other rigs over the same store directory (several instances). */
  coordination?: Coordination;
  /**
   * Another instance's store object, shared as instances share one database server. Two SQLite
   * connections to one file in one process cannot both write: one's busy wait blocks the event
   * loop the other needs to commit.
   */
  store?: ChatDb;
  /** Gateway entries (approvers, approval destinations). */
  entries?: GatewayEntryRef[];
  /** The outbox sender's timing (retries, the idle look for pieces). */
  outbox?: OutboxOptions;
  /** The run manager's logger (default silent). */
  runLogger?: RunLogger;
  /** Runs once during start, after recovery has read the unfinished inbox records and before it uses them. */
  duringRecovery?: (session: GatewaySession) => Promise<void>;
  /** Which suspended runs from elsewhere this session asks for (the session's `ownsRun`). */
  ownsRun?: GatewaySessionOptions["ownsRun"];
  /** The session's bound on one streamed-preview update. */
  streamUpdateTimeoutMs?: number;
  /** Changes the run manager before the session gets it (e.g. one without an optional method). */
  adaptRuns?: (runs: CountingRunManager) => void;
  /** Tools added to the test agent's (e.g. one whose result carries files). */
  tools?: AgentDefinition["tools"];
  /** The model the run manager calls instead of the agent's demo model. */
  model?: ConstructorParameters<typeof CountingRunManager>[0]["model"];
  /** The run manager's transcriber of voice notes. */
  transcribe?: ConstructorParameters<typeof CountingRunManager>[0]["transcribe"];
}

/** A fresh temp folder; removed when the test file ends if no test removed it before (testTempDir). */
export function tempDir(): string {
  return testTempDir("agentsvc-session-");
}

export async function rig(options: RigOptions = {}): Promise<Rig> {
  const dir = options.dir ?? tempDir();
  const db = options.store ?? ChatDb.open({ appRoot: dir, path: "data/chat.db" });
  const ownsStore = options.store === undefined;
  const gates = options.gates ?? new Gates();
  const executed: string[] = [];
  const base = testAgent(gates, executed, options.gatewaySession, options.channel, options.tokenDelayMs);
  // testAgent's model is the demo spec object (an agent's model may also be a string or an instance).
  const demo = base.model as { provider: "demo"; tokenDelayMs?: number };
  const withTools = options.tools ? { ...base, tools: [...(base.tools ?? []), ...options.tools] } : base;
  const scripted = options.script ? { ...withTools, model: { ...demo, script: options.script } } : withTools;
  const agent =
    options.expiresAfterSeconds === undefined
      ? scripted
      : {
          ...scripted,
          approvals: { ...scripted.approvals, expiresAfterSeconds: options.expiresAfterSeconds },
        };
  const runs = new CountingRunManager({
    agent,
    memory: db.createMemory({ canSummarize: false }),
    runStore: db.runStore,
    logger: options.runLogger ?? { info() {}, warn() {}, error() {} },
    ...(options.model ? { model: options.model } : {}),
    ...(options.transcribe ? { transcribe: options.transcribe } : {}),
  });
  await runs.ready();
  options.adaptRuns?.(runs);
  const logs = captureLogs();
  const registry = new GatewayRegistry();
  const gateway = createMockGateway(options.gateway ?? {});
  registry.register(gateway);
  for (const g of options.extraGateways ?? []) registry.register(g);
  const session = createGatewaySession({
    runs,
    store: db,
    registry,
    agent,
    loggers: { destination: logs.stream, level: "debug" },
    ...(options.coordination ? { coordination: options.coordination, sweepMs: options.sweepMs ?? 100 } : {}),
    ...(options.threadHoldMs !== undefined ? { threadHoldMs: options.threadHoldMs } : {}),
    ...(options.maxHeldThreads !== undefined ? { maxHeldThreads: options.maxHeldThreads } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.entries ? { entries: options.entries } : {}),
    ...(options.outbox ? { outbox: options.outbox } : {}),
    ...(options.ownsRun ? { ownsRun: options.ownsRun } : {}),
    ...(options.streamUpdateTimeoutMs ? { streamUpdateTimeoutMs: options.streamUpdateTimeoutMs } : {}),
  });
  const hook = options.duringRecovery;
  if (hook) {
    const read = db.inbox.unfinished.bind(db.inbox);
    db.inbox.unfinished = async () => {
      const rows = await read();
      db.inbox.unfinished = read;
      await hook(session);
      return rows;
    };
  }
  await session.start();
  let closed = false;
  return {
    dir,
    db,
    runs,
    session,
    gateway,
    registry,
    gates,
    executed,
    logs,
    agent,
    close: async (drainMs = 2_000) => {
      if (closed) return;
      closed = true;
      await session.stop(drainMs);
      if (ownsStore) db.close();
    },
  };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Rigs that live for one test: the returned `openRig` builds one, and after each test every rig it
 * built is stopped and then its directory removed (stopped first: two rigs may share a directory).
 */
export function useRig(): (options?: RigOptions) => Promise<Rig> {
  const open: Rig[] = [];
  afterEach(async () => {
    const ending = open.splice(0).reverse();
    for (const r of ending) await r.close();
    for (const r of ending) removeDir(r.dir);
  });
  return async (options) => {
    const r = await rig(options);
    open.push(r);
    return r;
  };
}

/**
 * A cluster test file's instances over one folder: push each rig started onto `rigs`; after each
 * test they are closed, later ones first (the first owns the shared store), then the folder the
 * test took from `freshDir` is removed.
 */
export function clusterRigs(): { rigs: Rig[]; freshDir: () => string } {
  const rigs: Rig[] = [];
  let dir: string | undefined;
  afterEach(async () => {
    for (const r of rigs.splice(0).reverse()) await r.close(50);
    if (dir) removeDir(dir);
    dir = undefined;
  });
  return { rigs, freshDir: () => (dir = tempDir()) };
}

/** A session whose approval-channel runs are asked in the room "ops-room" of a second mock gateway, "ops" (no buttons). */
export function withApprovalRoom(dir: string): { ops: MockGateway; options: RigOptions } {
  const ops = createMockGateway({ name: "ops", capabilities: { interactiveActions: false } });
  const options: RigOptions = {
    dir,
    extraGateways: [ops],
    channel: "ops",
    entries: [{ name: "ops", type: "mock", approvalDestination: "ops-room" }],
  };
  return { ops, options };
}

/** The conversation memory a rig's store holds for one user and conversation. */
export function memoryOf(r: Rig, userId: string, conversationId: string) {
  return r.db.createMemory({ canSummarize: false }).load({ userId, conversationId });
}

/** Waits until `check` holds. */
export async function until(
  check: () => boolean | Promise<boolean>,
  what = "condition",
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** `inner` with the key of every lock asked for noted in `asked` (each one a database round trip). */
export function countingLocks(inner: Coordination, asked: string[]): Coordination {
  return {
    ...inner,
    acquireThread: (key) => {
      asked.push(key);
      return inner.acquireThread(key);
    },
  };
}

/** A step that waits, once reached, until the test releases it. */
export function parked() {
  let release = () => {};
  const released = new Promise<void>((r) => {
    release = r;
  });
  const step = {
    began: false,
    reached: () => {
      step.began = true;
      return released;
    },
    release: () => release(),
  };
  return step;
}

/** A backlog of `count` outbox pieces, one a thread (`t0`, `t1`, ...): each its own head, due at once. */
export function backlogPieces(count: number) {
  return Array.from({ length: count }, (_, t) => ({
    gateway: "mock",
    thread: `t${t}`,
    idemKey: `t${t}`,
    kind: "text" as const,
    payload: { text: `t${t}` },
  }));
}
