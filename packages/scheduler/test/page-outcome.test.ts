// A chat page tick is finished inside its turn's transaction (`within`). A turn that failed (a spent
// budget) persists its messages too, so what `within` writes is all a crash right after the commit
// leaves, and what `schedules list` reads until the runner's own write: it must be how the turn ended.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChatDb } from "@agentsvc/chat-store";
import { afterEach, describe, expect, it } from "vitest";
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

/** One due tick whose turn ends as `ending`; the tick's row as `within` committed it. */
async function tickEnding(ending: PageEnding) {
  db = ChatDb.open({ appRoot: mkdtempSync(join(tmpdir(), "agentsvc-page-outcome-")), path: "chat.db" });
  const store = db.scheduleTicks;
  const clock = { now: T0 };
  let committed: Awaited<ReturnType<typeof store.last>>;
  const runner = new ScheduleRunner({
    schedules: [page],
    store,
    sink: {
      deliver: () => Promise.reject(new Error("no gateway here")),
      hasGateway: () => false,
      runPage: async ({ within }) => {
        await within(ending);
        committed = await store.last(page.name);
        return ending;
      },
    },
    instance: "a",
    logger: quiet,
    now: () => clock.now,
  });
  await runner.start();
  clock.now += 60_000;
  await runner.pass();
  await runner.stop();
  return { committed, finished: await store.last(page.name) };
}

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
});
