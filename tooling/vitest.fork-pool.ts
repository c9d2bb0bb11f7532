// The pool of every project whose files run in child processes (#45.6): vitest's forks pool, but a
// project may let its files reuse a process one after another (`poolOptions.forks.isolate: false`
// in its config, the preset's `reuseProcesses`). A new process per file costs ~0.4 CPU-s before
// the file's first import (Node, vitest's worker, tinypool's two shells reading /proc/cpuinfo)
// and then loads the package and its dependencies again: chat-store's 48 files at load 10-14,
// 58 -> 28 user CPU-s. Vitest's own non-isolated forks are run-wide and wait for each project's
// slowest file before the next project starts; here the slots take the next file in the
// sequencer's order, preferring one of the project their process has loaded, so a project
// ends when its files do. The slots (maxWorkers) are shared by both kinds of files.
// Every file runs in vitest.fork-worker.ts: vitest's forks worker with a channel whose calls wait
// longer than 60 s for their answer ("[vitest-worker]: Timeout calling", seen at load 55-72), and
// which keeps a file's listener through the next file of a kept process.
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { EventEmitter } from "node:events";
import { availableParallelism } from "node:os";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import v8 from "node:v8";
import {
  createMethodsRPC,
  type ProcessPool,
  type TestProject,
  type TestSpecification,
  type Vitest,
} from "vitest/node";
import { FORK_WORKER } from "./vitest.fork-worker.ts";

/** The path a project's `pool` names to run in this pool. */
export const FORK_POOL = import.meta.filename;

interface Pool {
  run(task: unknown, options: { name: string; channel: unknown }): Promise<unknown>;
  recycleWorkers(): Promise<void>;
  destroy(): Promise<void>;
}
type PoolClass = new (options: Record<string, unknown>) => Pool;
type Birpc = (functions: object, options: Record<string, unknown>) => { onCancel(reason: string): void };

// vitest's own dependencies, not the workspace's: found beside vitest's real folder (pnpm's store).
const vitestDir = dirname(realpathSync(join(import.meta.dirname, "../node_modules/vitest/package.json")));
const vitestFile = async (path: string) => import(pathToFileURL(join(vitestDir, path)).href);

// The vitest (pnpm-lock.yaml) this pool was written against: its birpc is in a chunk whose name
// changes with each vitest; an upgrade that moved it fails with what to do, not a bare ENOENT.
const PINNED_VITEST = "3.2.7";
const BIRPC_CHUNK = "dist/chunks/index.B521nVV-.js";

/** birpc, bundled in vitest's chunk (the worker's end of the channel is the same code). */
async function birpcOfVitest(): Promise<Birpc> {
  const { version } = JSON.parse(readFileSync(join(vitestDir, "package.json"), "utf8")) as {
    version: string;
  };
  const fix = `tooling/vitest.fork-pool.ts was written for vitest ${PINNED_VITEST} and found ${version}: find the chunk of that vitest that exports birpc's createBirpc (grep -l "function createBirpc" ${join(vitestDir, "dist/chunks")}/*.js) and its export's name, or keep vitest at ${PINNED_VITEST} (pnpm-lock.yaml; package.json allows ^3.2.4)`;
  if (!existsSync(join(vitestDir, BIRPC_CHUNK))) throw new Error(`${BIRPC_CHUNK} is missing. ${fix}`);
  const { c } = (await vitestFile(BIRPC_CHUNK)) as { c?: unknown };
  if (typeof c !== "function") throw new Error(`${BIRPC_CHUNK} exports no birpc as "c". ${fix}`);
  return c as Birpc;
}

const reuses = (project: TestProject) =>
  (project.config.poolOptions?.forks as { isolate?: boolean } | undefined)?.isolate === false;

export default async function forkPool(
  vitest: Vitest,
  { execArgv, env }: { execArgv: string[]; env: Record<string, string | undefined> },
): Promise<ProcessPool> {
  const { default: Tinypool } = (await vitestFile("../tinypool/dist/index.js")) as { default: PoolClass };
  const createBirpc = await birpcOfVitest();
  const cpus = availableParallelism();
  const slots =
    vitest.config.fileParallelism === false
      ? 1
      : (vitest.config.maxWorkers ??
        (vitest.config.watch ? Math.max(Math.floor(cpus / 2), 1) : Math.max(cpus - 1, 1)));
  const options = {
    runtime: "child_process",
    filename: resolve(vitest.distPath, "worker.js"),
    teardown: "teardown",
    minThreads: 0,
    env,
    execArgv,
    terminateTimeout: vitest.config.teardownTimeout,
    concurrentTasksPerWorker: 1,
  };
  // One process per file, as vitest's forks pool.
  const isolated = new Tinypool({ ...options, maxThreads: slots, isolateWorkers: true });
  // Each slot's process of its current project, kept while idle (tinypool ends idle ones at once).
  const kept = Array.from({ length: slots }, () => ({
    pool: new Tinypool({ ...options, maxThreads: 1, isolateWorkers: false, idleTimeout: 2 ** 31 - 1 }),
    project: undefined as TestProject | undefined,
  }));

  // The channels of the files running now: a cancel reaches them through one listener a run (vitest
  // keeps a run's listeners to its end: one a file held each ended file's channel, 663 a run).
  const open = new Set<{ onCancel(reason: string): void }>();

  // vitest's forks pool's channel: the worker's RPC to the main process, v8-serialized.
  const channelOf = (project: TestProject, collect: boolean) => {
    const emitter = new EventEmitter();
    const rpc = createBirpc(createMethodsRPC(project, { cacheFs: true, collect }), {
      eventNames: ["onCancel"],
      serialize: v8.serialize,
      deserialize: (v: Uint8Array) => v8.deserialize(Buffer.from(v)),
      post: (v: unknown) => emitter.emit("message", v),
      on: (fn: (v: unknown) => void) => emitter.on("response", fn),
    });
    open.add(rpc);
    return {
      onMessage: (callback: (v: unknown) => void) => emitter.on("message", callback),
      postMessage: (message: unknown) => emitter.emit("response", message),
      onClose: () => {
        open.delete(rpc);
        emitter.removeAllListeners();
      },
    };
  };

  let workerId = 0;
  const runWith =
    (name: "run" | "collect") =>
    async (specs: TestSpecification[], invalidates: string[] = []) => {
      const queue = [...specs];
      const configs = new Map<TestProject, unknown>();
      const configOf = (project: TestProject) => {
        if (!configs.has(project)) {
          const config = project.getSerializableConfig();
          // What vitest's wrapSerializableConfig does: v8 keeps no RegExp, nor undefined values.
          const pattern = config.testNamePattern;
          configs.set(project, {
            ...config,
            testNamePattern:
              pattern && typeof pattern !== "string" ? `$$vitest:${pattern.toString()}` : pattern,
            defines: config.defines
              ? { keys: Object.keys(config.defines), original: config.defines }
              : config.defines,
          });
        }
        return configs.get(project);
      };
      const runFile = async (spec: TestSpecification, pool: Pool) => {
        const { project, moduleId } = spec;
        vitest.state.clearFiles(project, [moduleId]);
        const data = {
          pool: "forks",
          // vitest's forks worker behind a channel of its own (vitest.fork-worker.ts says why).
          worker: FORK_WORKER,
          forksWorker: resolve(vitest.distPath, "workers/forks.js"),
          config: configOf(project),
          files: [{ filepath: moduleId, testLocations: spec.testLines }],
          invalidates,
          environment: { name: project.config.environment ?? "node", options: null },
          workerId: ++workerId,
          projectName: project.name,
          providedContext: project.getProvidedContext(),
        };
        try {
          await pool.run(data, { name, channel: channelOf(project, name === "collect") });
        } catch (error) {
          if (
            (vitest as { isCancelling?: boolean }).isCancelling &&
            error instanceof Error &&
            /The task has been cancelled/.test(error.message)
          )
            vitest.state.cancelFiles([moduleId], project);
          else throw error;
        }
      };
      const errors: unknown[] = [];
      const slot = async (own: (typeof kept)[number]) => {
        while (queue.length > 0) {
          const at = own.project ? queue.findIndex((s) => s.project === own.project) : -1;
          const [spec] = queue.splice(Math.max(at, 0), 1);
          if (!spec) return;
          try {
            if (!reuses(spec.project)) await runFile(spec, isolated);
            else {
              if (own.project !== spec.project) {
                await own.pool.recycleWorkers();
                own.project = spec.project;
              }
              await runFile(spec, own.pool);
            }
          } catch (error) {
            errors.push(error);
          }
        }
      };
      // vitest drops the listeners as each run starts.
      vitest.onCancel((reason) => {
        queue.splice(0);
        for (const rpc of open) rpc.onCancel(reason);
      });
      await Promise.all(kept.map(slot));
      // A run's kept processes end with it: the next run (watch mode) loads its modules afresh.
      await Promise.all(
        kept.map(async (own) => {
          own.project = undefined;
          await own.pool.recycleWorkers();
        }),
      );
      if (errors.length > 0) throw new AggregateError(errors, "Errors occurred while running tests.");
    };

  return {
    name: "agentsvc-forks",
    runTests: runWith("run"),
    collectTests: runWith("collect"),
    close: async () => {
      await Promise.all([isolated.destroy(), ...kept.map((own) => own.pool.destroy())]);
    },
  };
}
