// A chat page tick is finished inside its turn's transaction (`within`). A turn that failed (a spent
// budget) persists its messages too, so what `within` writes is all a crash right after the commit
// leaves, and what `schedules list` reads until the runner's own write: it must be how the turn ended.
import { ChatDb } from "@agentsvc/chat-store";
import { afterEach, describe, expect, it } from "vitest";
import { testTempDir } from "../../../tooling/vitest.temp-dirs.js";
import { type PageEnding, type ScheduleDef, ScheduleRunner } from "../src/index.js";

const T0 = Date.UTC(2026, 11, 1, 9, 0, 30);
const quiet = { info() {}, warn() {}, error() {} };
const page: ScheduleDef = {
  name: "critique",
  everyMs: 60_000,
  timezone: "UTC",
  prompt: "Critique",
  to: { page: "web", user: "ada", conversation: "critique" },
  enabled: true,
  catchUp: "none",
};

let db: ChatDb | undefined;
afterEach(async () => {
  await db?.close();
  db = undefined;
});

type RunPage = (within: (ended: PageEnding) => Promise<void>) => Promise<PageEnding>;

/** A turn that commits `ending` with its tick, as the server's page runner does. */
const turnEnding =
  (ending: PageEnding): RunPage =>
  async (within) => {
    await within(ending);
    return ending;
  };

/**
 * One due tick run by `runPage`; the tick's row as the turn committed it, as finished, the tick
 * writes made (store.finish calls) and the outcomes the observer heard.
 */
async function tickRun(runPage: RunPage) {
  db = ChatDb.open({ appRoot: testTempDir("agentsvc-page-outcome-"), path: "chat.db" });
  const ticks = db.scheduleTicks;
  const finishes: unknown[][] = [];
  const store: typeof ticks = Object.create(ticks);
  store.finish = (...args: Parameters<typeof ticks.finish>) => {
    finishes.push(args);
    return ticks.finish(...args);
  };
  const outcomes: string[] = [];
  const clock = { now: T0 };
  let committed: Awaited<ReturnType<typeof store.last>>;
  const runner = new ScheduleRunner({
    schedules: [page],
    store,
    sink: {
      deliver: () => Promise.reject(new Error("no gateway here")),
      hasGateway: () => false,
      runPage: async ({ within }) => {
        const ended = await runPage(within);
        committed = await ticks.last(page.name);
        return ended;
      },
    },
    instance: "a",
    logger: quiet,
    observer: { onOutcome: (_schedule, outcome) => outcomes.push(outcome) },
    now: () => clock.now,
  });
  await runner.start();
  clock.now += 60_000;
  await runner.pass();
  await runner.stop();
  return { committed, finished: await ticks.last(page.name), finishes, outcomes };
}

/** One due tick whose turn ends as `ending`. */
const tickEnding = (ending: PageEnding) => tickRun(turnEnding(ending));

describe("a chat page tick's outcome, written with its turn", () => {
  it("a turn that ended failed commits the tick as failed with its error, never as delivered", async () => {
    const error = "the turn ended failed (budget_exceeded)";
    const { committed, finished } = await tickEnding({ error });
    expect(committed).toMatchObject({ outcome: "failed", error });
    expect(finished).toMatchObject({ outcome: "failed", error });
  });

  it("a completed turn commits delivered, or silent when its reply is empty", async () => {
    expect((await tickEnding({ text: "From the critic." })).committed).toMatchObject({
      outcome: "delivered",
      error: null,
    });
    await db?.close();
    expect((await tickEnding({ text: "  " })).committed).toMatchObject({ outcome: "silent", error: null });
  });

  it("a failed turn's tick is written once, by its turn: the runner does not write the failure again", async () => {
    const error = "the turn ended failed (budget_exceeded)";
    const { finished, finishes, outcomes } = await tickEnding({ error });
    expect(finishes).toEqual([[page.name, expect.any(Number), "failed", error]]);
    expect(finished).toMatchObject({ outcome: "failed", error });
    expect(outcomes).toEqual(["failed"]);
  });

  it("a tick whose turn never committed (no within) is finished failed by the runner", async () => {
    const error = 'chat page "web" is not served';
    const { committed, finished, finishes, outcomes } = await tickRun(async () => ({ error }));
    expect(committed).toMatchObject({ outcome: "claimed" });
    expect(finishes).toHaveLength(1);
    expect(finished).toMatchObject({ outcome: "failed", error });
    expect(outcomes).toEqual(["failed"]);
  });

  it("a turn whose commit failed after within (a rolled back transaction) is finished failed with that failure", async () => {
    const error = "the turn ended failed (persist_failed)";
    const { finished, finishes, outcomes } = await tickRun(async (within) => {
      await within({ error: "the turn ended failed (model_error)" });
      return { error };
    });
    expect(finishes.map((args) => args[3])).toEqual(["the turn ended failed (model_error)", error]);
    expect(finished).toMatchObject({ outcome: "failed", error });
    expect(outcomes).toEqual(["failed"]);
  });
});
