// `pnpm bench big-messages` (not part of `pnpm bench`): #38's attack as a row. Six parallel clients
// send 20 turns of large messages in each of 250 conversations to an open agent route on database
// memory (SQLite); the server's RSS is sampled every 250 ms. Once with 900 KB messages (over the
// 200,000-character message cap: each is refused with 413 `message_too_large`, which is not a
// failure), once with messages just under the cap (stored, read back by later prompts and cached):
// RSS must stay under 1 GiB and no request may fail. The baseline is the same server's RSS idle,
// before the load. BENCH_BIG_CONVERSATIONS (250), BENCH_BIG_TURNS (20) and BENCH_BIG_CLIENTS (6)
// scale it down.
import { resolve } from "node:path";
import { startChildServer } from "./child-server.ts";
import { freshProject } from "./fresh-project.ts";
import { machineLoad, memoryOf } from "./proc.ts";
import { fmt, type Row } from "./stats.ts";

const CONVERSATIONS = Number(process.env.BENCH_BIG_CONVERSATIONS ?? 250);
const TURNS = Number(process.env.BENCH_BIG_TURNS ?? 20);
const CLIENTS = Number(process.env.BENCH_BIG_CLIENTS ?? 6);
const CAP = 200_000;

interface Outcome {
  idleMiB: number;
  peakMiB: number;
  lastMiB: number;
  ok: number;
  refused: number;
  failed: number;
  firstFailure: string | undefined;
}

async function attack(chars: number): Promise<Outcome> {
  const project = freshProject("project-db");
  const server = await startChildServer(resolve(import.meta.dirname, "servers/route.ts"), {
    BENCH_PROJECT_DIR: project.dir,
  });
  let peak = 0;
  const sample = () => {
    peak = Math.max(peak, memoryOf(server.pid).rssMiB);
  };
  const idleMiB = memoryOf(server.pid).rssMiB;
  const timer = setInterval(sample, 250);
  const counts = { ok: 0, refused: 0, failed: 0, firstFailure: undefined as string | undefined };
  try {
    // Turn-major order: every conversation grows together, so every window is in use at once.
    const jobs: { conversation: number; turn: number }[] = [];
    for (let turn = 0; turn < TURNS; turn++)
      for (let conversation = 0; conversation < CONVERSATIONS; conversation++)
        jobs.push({ conversation, turn });
    let next = 0;
    const worker = async () => {
      while (next < jobs.length) {
        const job = jobs[next++] as { conversation: number; turn: number };
        const input = `${job.conversation}/${job.turn} ${"x".repeat(chars)}`;
        try {
          const res = await fetch(`${server.url}/agent/invoke`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ input, conversationId: `c${job.conversation}` }),
          });
          const body = await res.text();
          if (res.status === 200) counts.ok++;
          else if (res.status === 413 && body.includes("message_too_large")) counts.refused++;
          else {
            counts.failed++;
            counts.firstFailure ??= `${res.status} ${body.slice(0, 200)}`;
          }
        } catch (error) {
          counts.failed++;
          counts.firstFailure ??= String(error);
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, worker));
    sample();
    return { idleMiB, peakMiB: peak, lastMiB: memoryOf(server.pid).rssMiB, ...counts };
  } finally {
    clearInterval(timer);
    await server.stop();
    project.remove();
  }
}

export async function benchBigMessages(): Promise<Row[]> {
  const rows: Row[] = [];
  const load = machineLoad();
  for (const [label, chars] of [
    ["900 KB messages (over the cap)", 900 * 1024],
    ["messages just under the cap", CAP - 100],
  ] as const) {
    const o = await attack(chars);
    const what = `${CONVERSATIONS} conv x ${TURNS} turns, ${CLIENTS} clients, ${label}`;
    rows.push({
      metric: `${what}: peak RSS MiB (${load})`,
      value: fmt(o.peakMiB, 0),
      baseline: fmt(o.idleMiB, 0),
      ratio: fmt(o.peakMiB / o.idleMiB),
      target: "< 1024 MiB",
    });
    rows.push({
      metric: `${what}: answered / refused 413 / failed${o.firstFailure ? ` (first: ${o.firstFailure})` : ""}`,
      value: `${o.ok} / ${o.refused} / ${o.failed}`,
      baseline: `${CONVERSATIONS * TURNS} sent`,
      ratio: "",
      target: "0 failed",
    });
  }
  return rows;
}
