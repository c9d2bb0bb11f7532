// Cold start and idle memory of `agentsvc start` on examples/hello (agent route, MCP tool server,
// chat page, SQLite store), and on project-start-signin (the same behind a sign-in page with two
// accounts, checked at the page API's first request), each beside a bare @hono/node-server script (servers/bare-start.mjs), in
// the same run: each side is a fresh process timed from spawn to the first streamed answer chunk
// of POST /agent/stream, then left idle for 2 s and its RSS read; the CPU time the process used up
// to that first chunk is read too (a loaded machine's waiting is not in it), in 10 ms ticks for every
// thread and in nanoseconds for the main thread (schedstat, the finer figure). Rounds alternate;
// medians are reported. Node's compile cache is on for agentsvc as its bin ships it, in a folder of
// this run's, filled by each side's unmeasured first start (as for a user's restarts); the sign-in
// row finds the code cache examples/hello's first start wrote (a user's second project).
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { freshProject } from "./fresh-project.ts";
import { cpuSecondsOf, machineLoad, memoryOf } from "./proc.ts";
import { fmt, percentile, type Row } from "./stats.ts";

const ROUNDS = Math.max(1, Number(process.env.BENCH_START_ROUNDS ?? 5));
const root = resolve(import.meta.dirname, "../../..");
// BENCH_START_BEFORE=<an agentsvc bin of an older build>: measured too, alternated in the same rounds.
const BEFORE = process.env.BENCH_START_BEFORE;
// That build's repository (the bin is <tree>/packages/cli/bin/agentsvc.js): its side starts projects
// copied into that tree, so their agent files resolve that tree's agent-core and mcp, which its bin
// hands the bundle's copies (shared-packages.js). From this tree's bench folder they resolved ours,
// a second copy loaded file by file: the older side paid ~50 module files more than it ships.
const BEFORE_TREE = BEFORE ? resolve(BEFORE, "../../../..") : undefined;
// BENCH_START_BIN=<an agentsvc bin>: this side's bin (a build to try), in place of this tree's.
const OURS = resolve(process.env.BENCH_START_BIN ?? resolve(root, "packages/cli/bin/agentsvc.js"));
// That bin's repository: its projects are copied there, as the older side's are (BEFORE_TREE says
// why; from this tree, a bin of another tree loaded a second agent-core and mcp file by file).
const OURS_TREE = process.env.BENCH_START_BIN ? resolve(OURS, "../../../..") : undefined;
const agentsvc = (project: string, bin = OURS) => [bin, "start", project, "--port", "0"];
// Node's compile cache (and the bin's code cache in it, written by the first start once idle: the
// warm-up start of examples/hello) of this run only: not one a test's start wrote for its project.
const COMPILE_CACHE = join(root, "tooling/bench/.runs/start-compile-cache");
const PASSWORDS = { BENCH_ADA_PASSWORD: "correct horse", BENCH_BOB_PASSWORD: "battery staple" };
const BARE = [resolve(import.meta.dirname, "servers/bare-start.mjs")];

interface Sample {
  firstAnswerMs: number;
  /** CPU time (user + system, every thread) the process used until the first chunk. */
  cpuMs: number;
  /** The main thread's run time until the first chunk, in nanoseconds (schedstat): no 10 ms ticks. */
  mainCpuMs: number;
  idleRssMiB: number;
}

// examples/hello's files without its store, its `.agentsvc/` (built pages, the YAML data a restart
// reads back) and its packages: each start of the hello row gets a copy made just before it, so it
// is a first start (empty store, no history the bench wrote in earlier rounds). Always the same folder with the files' times kept, so Node's
// compile cache (keyed by file URL, which carries the loader's ?mtime=) is as warm as at a user's restart.
const HELLO_FILES = ["agents", "gateways", "mcp", "resources", "package.json"];
const helloCopyIn = (tree = root) => join(tree, "tooling/bench/.runs/start-hello");
function freshHello(tree?: string): string {
  const helloCopy = helloCopyIn(tree);
  rmSync(helloCopy, { recursive: true, force: true });
  for (const name of HELLO_FILES) {
    cpSync(join(root, "examples/hello", name), join(helloCopy, name), {
      recursive: true,
      preserveTimestamps: true,
    });
  }
  return helloCopy;
}

async function firstChunk(url: string): Promise<void> {
  const res = await fetch(`${url}/agent/stream`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ input: "hello" }),
  });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let seen = "";
  while (!seen.includes("event: chunk")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${url}: stream ended without a chunk (status ${res.status})`);
    seen += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
}

async function once(args: string[]): Promise<Sample> {
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, args, {
    stdio: ["ignore", "pipe", "ignore"],
    env: {
      ...process.env,
      ...PASSWORDS,
      LOG_LEVEL: "warn",
      NO_COLOR: "1",
      NODE_COMPILE_CACHE: COMPILE_CACHE,
    },
  });
  try {
    const url = await new Promise<string>((ok, fail) => {
      let out = "";
      child.stdout?.on("data", (d: Buffer) => {
        out += d.toString();
        const m = /listening (http:\/\/[\w.:]+)/.exec(out);
        if (m) ok(m[1] as string);
      });
      child.once("exit", (code) => fail(new Error(`${args.join(" ")} exited ${code}`)));
    });
    await firstChunk(url);
    const firstAnswerMs = performance.now() - started;
    const cpuMs = cpuSecondsOf(child.pid as number) * 1000;
    const mainCpuMs = mainThreadCpuMs(child.pid as number);
    await new Promise((r) => setTimeout(r, 2000));
    return { firstAnswerMs, cpuMs, mainCpuMs, idleRssMiB: memoryOf(child.pid as number).rssMiB };
  } finally {
    child.stdout?.removeAllListeners("data");
    const exited = new Promise((ok) => child.once("exit", ok));
    child.kill("SIGTERM");
    await exited;
  }
}

/** The main thread's time on a CPU (the first field of its schedstat, nanoseconds), in ms. */
function mainThreadCpuMs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
}

/**
 * `project(tree)` gives the folder to start, before every start (a fresh copy, or the same one):
 * inside `tree` (the older build's repository) for that side, else inside this one.
 */
async function startRows(name: string, project: (tree?: string) => string): Promise<Row[]> {
  const ours: Sample[] = [];
  const bare: Sample[] = [];
  const before: Sample[] = [];
  const loadBefore = machineLoad();
  // One unmeasured start each: fills the compile cache and the OS file cache for every side (and
  // creates the accounts of a sign-in project, as its first start in production would).
  await once(agentsvc(project(OURS_TREE)));
  if (BEFORE) await once(agentsvc(project(BEFORE_TREE), BEFORE));
  await once(BARE);
  for (let i = 0; i < ROUNDS; i++) {
    bare.push(await once(BARE));
    ours.push(await once(agentsvc(project(OURS_TREE))));
    if (BEFORE) before.push(await once(agentsvc(project(BEFORE_TREE), BEFORE)));
  }
  const med = (list: Sample[], key: keyof Sample) =>
    percentile(
      list.map((s) => s[key]),
      50,
    );
  const start = { ours: med(ours, "firstAnswerMs"), bare: med(bare, "firstAnswerMs") };
  const cpu = { ours: med(ours, "cpuMs"), bare: med(bare, "cpuMs") };
  const main = { ours: med(ours, "mainCpuMs"), bare: med(bare, "mainCpuMs") };
  const rss = { ours: med(ours, "idleRssMiB"), bare: med(bare, "idleRssMiB") };
  const rows: Row[] = [];
  if (BEFORE) {
    const b = {
      start: med(before, "firstAnswerMs"),
      cpu: med(before, "cpuMs"),
      main: med(before, "mainCpuMs"),
      rss: med(before, "idleRssMiB"),
    };
    rows.push(
      {
        metric: `before (${BEFORE}): cold start, ${name}`,
        value: `${fmt(b.start, 0)} ms`,
        baseline: `${fmt(start.bare, 0)} ms`,
        ratio: `${fmt(b.start / start.bare)}x`,
        target: "<= 2x",
      },
      {
        metric: `before: CPU to first answer, ${name}`,
        value: `${fmt(b.cpu, 0)} ms`,
        baseline: `${fmt(cpu.bare, 0)} ms`,
        ratio: `${fmt(b.cpu / cpu.bare)}x`,
        target: "",
      },
      {
        metric: `before: main thread's CPU to first answer, ${name}`,
        value: `${fmt(b.main, 1)} ms`,
        baseline: `${fmt(main.bare, 1)} ms`,
        ratio: `${fmt(b.main / main.bare)}x`,
        target: "",
      },
      {
        // Each round starts this build and the one before back to back: the difference within a
        // round leaves out most of the load's swing between rounds, which the medians keep.
        metric: `main thread's CPU, this build minus before, paired by round (median; min ${fmt(Math.min(...ours.map((s) => s.mainCpuMs)), 1)} vs ${fmt(Math.min(...before.map((s) => s.mainCpuMs)), 1)} ms), ${name}`,
        value: `${fmt(
          percentile(
            ours.map((s, i) => s.mainCpuMs - (before[i] as Sample).mainCpuMs),
            50,
          ),
          1,
        )} ms`,
        baseline: "",
        ratio: "",
        target: "",
      },
      {
        metric: `before: idle RSS, ${name}`,
        value: `${fmt(b.rss, 1)} MiB`,
        baseline: `${fmt(rss.bare, 1)} MiB`,
        ratio: `${fmt(b.rss / rss.bare)}x`,
        target: "<= 1.3x",
      },
    );
  }
  return [
    ...rows,
    {
      metric: `cold start to first answer chunk, ${name} (median of ${ROUNDS}; ${loadBefore}, then ${machineLoad()})`,
      value: `${fmt(start.ours, 0)} ms`,
      baseline: `${fmt(start.bare, 0)} ms`,
      ratio: `${fmt(start.ours / start.bare)}x`,
      target: "<= 2x",
    },
    {
      metric: `CPU time to first answer chunk (user + system), ${name}`,
      value: `${fmt(cpu.ours, 0)} ms`,
      baseline: `${fmt(cpu.bare, 0)} ms`,
      ratio: `${fmt(cpu.ours / cpu.bare)}x`,
      target: "",
    },
    {
      metric: `main thread's CPU to first answer chunk (schedstat), ${name}`,
      value: `${fmt(main.ours, 1)} ms`,
      baseline: `${fmt(main.bare, 1)} ms`,
      ratio: `${fmt(main.ours / main.bare)}x`,
      target: "",
    },
    {
      metric: `idle RSS after start and one answer, ${name}`,
      value: `${fmt(rss.ours, 1)} MiB`,
      baseline: `${fmt(rss.bare, 1)} MiB`,
      ratio: `${fmt(rss.ours / rss.bare)}x`,
      target: "<= 1.3x",
    },
  ];
}

export async function benchStart(): Promise<Row[]> {
  const rows: Row[] = [];
  rmSync(COMPILE_CACHE, { recursive: true, force: true });
  try {
    rows.push(...(await startRows("examples/hello", freshHello)));
  } finally {
    for (const tree of [root, OURS_TREE, BEFORE_TREE])
      if (tree) rmSync(helloCopyIn(tree), { recursive: true, force: true });
  }
  // A copy made once (one per side), so its store (and the accounts and saved page copies with it)
  // persists across the rounds, as a restart finds them, but not across runs.
  const signin = freshProject("project-start-signin", OURS_TREE);
  const signinBefore = BEFORE_TREE ? freshProject("project-start-signin", BEFORE_TREE) : undefined;
  try {
    rows.push(
      ...(await startRows(
        "sign-in and MCP",
        (tree) => (tree !== undefined && tree === BEFORE_TREE ? (signinBefore ?? signin) : signin).dir,
      )),
    );
  } finally {
    signin.remove();
    signinBefore?.remove();
    rmSync(COMPILE_CACHE, { recursive: true, force: true });
  }
  return rows;
}
