// Recovery with a run manager that cannot do all it might: one without the optional methods for
// continuations a previous process left (RunManagerApi `interrupted`, `continueInterrupted`), and
// a continuation that is gone by the time recovery continues it.
import { ChatDb } from "@agentsvc/chat-store";
import { describe, expect, it } from "vitest";
import {
  diedWhileApprovedRunElsewhereRan,
  diedWhileApprovedToolRan,
  recordedNotRun,
} from "./recovery-crashes.js";
import { type CountingRunManager, type Rig, tempDir, until, useRig } from "./session-harness.js";

const openRig = useRig();
const errorsOf = (r: Rig) => r.logs.lines().filter((l) => l.level >= 50);

/** A run manager whose listed continuations are deleted from the store right after the listing. */
const goneOnceListed = (db: ChatDb) => (runs: CountingRunManager) => {
  const interrupted = runs.interrupted.bind(runs);
  Object.assign(runs, {
    interrupted: async (one?: string) => {
      const listed = await interrupted(one);
      for (const run of listed) await db.runStore.delete(run.options.threadId);
      return listed;
    },
  });
};

describe("recovery with a run manager", () => {
  it("that cannot list continuations still runs the message a previous process left", async () => {
    const dir = tempDir();
    await recordedNotRun(dir, "U", ["left behind"]);
    const b = await openRig({ dir, adaptRuns: (runs) => Object.assign(runs, { interrupted: undefined }) });
    await until(() => b.gateway.textsTo("U").length === 1, "the reply to the message left behind");
    expect(b.runs.starts.map((s) => s.input)).toEqual(["left behind"]);
    expect(b.gateway.textsTo("U")[0]).toContain("left behind");
    expect(errorsOf(b)).toEqual([]);
  });

  it("that lists continuations but cannot continue them boots, ends the interrupted turn with the failure reply and runs the rest", async () => {
    const dir = tempDir();
    await diedWhileApprovedToolRan(openRig, dir, "T");
    await diedWhileApprovedRunElsewhereRan(dir);
    await recordedNotRun(dir, "U", ["on another thread"]);
    const b = await openRig({
      dir,
      adaptRuns: (runs) => Object.assign(runs, { continueInterrupted: undefined }),
    });
    await until(() => b.gateway.textsTo("U").length === 1, "the reply on the other thread");
    await until(() => b.gateway.textsTo("T").length === 1, "the failure reply on the interrupted thread");
    expect(b.gateway.textsTo("T")[0]).toMatch(/could not answer/);
    expect(errorsOf(b).map((l) => l.msg)).toEqual(["could not continue an interrupted turn"]);
    // The thread is not left waiting on a turn nothing runs: its next message is answered.
    await b.gateway.inject({ thread: "T", text: "still there?", id: "after-boot" });
    await until(() => b.gateway.textsTo("T").length === 2, "the reply to the next message");
    expect(b.runs.starts.map((s) => s.input)).toEqual(["on another thread", "still there?"]);
  });
});

describe("a run elsewhere whose continuation is gone when recovery continues it", () => {
  it("is logged as an error with its thread, and the boot goes on", async () => {
    const dir = tempDir();
    const threadId = await diedWhileApprovedRunElsewhereRan(dir);
    await recordedNotRun(dir, "U", ["after the boot"]);
    const db = ChatDb.open({ appRoot: dir, path: "data/chat.db" });
    try {
      const b = await openRig({
        dir,
        store: db,
        // Listed, then continued and finished by another process before this one gets to it.
        adaptRuns: goneOnceListed(db),
      });
      await until(() => b.gateway.textsTo("U").length === 1, "the reply after the boot");
      const errors = errorsOf(b);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ msg: "could not continue an interrupted run", threadId });
      expect(String((errors[0]?.err as { message?: string })?.message)).toMatch(
        /no interrupted continuation/,
      );
      await b.close();
    } finally {
      db.close();
    }
  });
});

describe("a gateway turn whose continuation is gone when recovery continues it", () => {
  it("ends with the failure reply and an error naming the thread; the boot and the thread go on", async () => {
    const dir = tempDir();
    await diedWhileApprovedToolRan(openRig, dir, "T");
    await recordedNotRun(dir, "U", ["after the boot"]);
    const db = ChatDb.open({ appRoot: dir, path: "data/chat.db" });
    try {
      const b = await openRig({
        dir,
        store: db,
        // Listed, then gone (finished or removed elsewhere) before this process continues it.
        adaptRuns: goneOnceListed(db),
      });
      await until(() => b.gateway.textsTo("U").length === 1, "the reply after the boot");
      await until(() => b.gateway.textsTo("T").length === 1, "the failure reply on the interrupted thread");
      expect(b.gateway.textsTo("T")[0]).toMatch(/could not answer this message \(not_found\)/);
      const errors = errorsOf(b);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({
        msg: "could not continue an interrupted turn",
        threadId: "gw:mock:T",
      });
      await b.gateway.inject({ thread: "T", text: "and now?", id: "after-boot" });
      await until(() => b.gateway.textsTo("T").length === 2, "the reply to the next message");
      await b.close();
    } finally {
      db.close();
    }
  });
});
