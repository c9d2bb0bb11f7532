// Cold start and idle memory of `agentsvc start` on examples/hello (agent route, MCP tool server,
// chat page, SQLite store), and on project-start-signin (the same behind a sign-in page with two
// accounts, whose PBKDF2 checks run at every start), each beside a bare @hono/node-server script (servers/bare-start.mjs), in
// the same run: each side is a fresh process timed from spawn to the first streamed answer chunk
// of POST /agent/stream, then left idle for 2 s and its RSS read. Rounds alternate; medians are
// reported. Node's compile cache is on for agentsvc as its bin ships it (warm after the first run).
import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import { freshProject } from "./fresh-project.ts";
import { machineLoad, memoryOf } from "./proc.ts";
import { fmt, percentile, type Row } from "./stats.ts";

const ROUNDS = Math.max(1, Number(process.env.BENCH_START_ROUNDS ?? 5));
const root = resolve(import.meta.dirname, "../../..");
// BENCH_START_BEFORE=<an agentsvc bin of an older build>: measured too, alternated in the same rounds.
const BEFORE = process.env.BENCH_START_BEFORE;
const agentsvc = (project: string, bin = resolve(root, "packages/cli/bin/agentsvc.js")) => [
  bin,
  "start",
  project,
  "--port",
  "0",
];
const PASSWORDS = { BENCH_ADA_PASSWORD: "correct horse", BENCH_BOB_PASSWORD: "battery staple" };
const BARE = [resolve(import.meta.dirname, "servers/bare-start.mjs")];

interface Sample {
  firstAnswerMs: number;
  idleRssMiB: number;
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
    env: { ...process.env, ...PASSWORDS, LOG_LEVEL: "warn", NO_COLOR: "1" },
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
    await new Promise((r) => setTimeout(r, 2000));
    return { firstAnswerMs, idleRssMiB: memoryOf(child.pid as number).rssMiB };
  } finally {
    child.stdout?.removeAllListeners("data");
    const exited = new Promise((ok) => child.once("exit", ok));
    child.kill("SIGTERM");
    await exited;
  }
}

async function startRows(name: string, project: string): Promise<Row[]> {
  const ours: Sample[] = [];
  const bare: Sample[] = [];
  const before: Sample[] = [];
  // One unmeasured start each: fills the compile cache and the OS file cache for both sides (and
  // creates the accounts of a sign-in project, as its first start in production would).
  await once(agentsvc(project));
  await once(BARE);
  for (let i = 0; i < ROUNDS; i++) {
    bare.push(await once(BARE));
    ours.push(await once(agentsvc(project)));
    if (BEFORE) before.push(await once(agentsvc(project, BEFORE)));
  }
  const med = (list: Sample[], key: keyof Sample) =>
    percentile(
      list.map((s) => s[key]),
      50,
    );
  const start = { ours: med(ours, "firstAnswerMs"), bare: med(bare, "firstAnswerMs") };
  const rss = { ours: med(ours, "idleRssMiB"), bare: med(bare, "idleRssMiB") };
  const rows: Row[] = [];
  if (BEFORE) {
    const b = { start: med(before, "firstAnswerMs"), rss: med(before, "idleRssMiB") };
    rows.push(
      {
        metric: `before (${BEFORE}): cold start, ${name}`,
        value: `${fmt(b.start, 0)} ms`,
        baseline: `${fmt(start.bare, 0)} ms`,
        ratio: `${fmt(b.start / start.bare)}x`,
        target: "<= 2x",
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
      metric: `cold start to first answer chunk, ${name} (median of ${ROUNDS}; ${machineLoad()})`,
      value: `${fmt(start.ours, 0)} ms`,
      baseline: `${fmt(start.bare, 0)} ms`,
      ratio: `${fmt(start.ours / start.bare)}x`,
      target: "<= 2x",
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
  const rows = await startRows("examples/hello", resolve(root, "examples/hello"));
  // A copy, so its store (and the accounts in it) persists across the rounds but not across runs.
  const signin = freshProject("project-start-signin");
  try {
    rows.push(...(await startRows("sign-in and MCP", signin.dir)));
  } finally {
    signin.remove();
  }
  return rows;
}
