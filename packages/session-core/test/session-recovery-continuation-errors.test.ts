// What recovery keeps of a gateway turn whose continuation fails at boot (recovery.ts step 1): the
// turn ends with the failure reply either way, but its checkpoint is removed and the run let go
// only when nothing else runs it; a thread_busy refusal means someone does, so both stay.
import { AgentsvcError } from "@agentsvc/agent-core";
import { describe, expect, it } from "vitest";
import { diedWhileApprovedToolRan } from "./recovery-crashes.js";
import { type Rig, tempDir, until, useRig } from "./session-harness.js";

const openRig = useRig();
const T = "T";
const errorsOf = (r: Rig) => r.logs.lines().filter((l) => l.level >= 50);

/** Boots over a turn that died while its approved tool ran, its continuation refused with `refusal`. */
async function bootRefusing(refusal: Error): Promise<{ b: Rig; released: string[] }> {
  const dir = tempDir();
  await diedWhileApprovedToolRan(openRig, dir, T);
  const released: string[] = [];
  const b = await openRig({
    dir,
    adaptRuns: (runs) =>
      Object.assign(runs, {
        continueInterrupted: async () => {
          throw refusal;
        },
        release: (threadId: string) => released.push(threadId),
      }),
  });
  await until(() => b.gateway.textsTo(T).length === 1, "the failure reply");
  return { b, released };
}

describe("a gateway turn whose continuation is refused at boot", () => {
  it.each([
    ["thread_busy (another process runs it)", new AgentsvcError("thread_busy", "busy", 409), true],
    ["not_found", new AgentsvcError("not_found", "gone", 404), false],
    ["an error of no code", new Error("the disk is gone"), false],
  ] as const)(
    "%s: ends with the failure reply; its checkpoint is removed and the run released, unless thread_busy",
    async (_, refusal, keeps) => {
      const { b, released } = await bootRefusing(refusal);
      expect(b.gateway.textsTo(T)[0]).toMatch(/could not answer/);
      expect(errorsOf(b).map((l) => l.msg)).toEqual(["could not continue an interrupted turn"]);
      expect((await b.db.runStore.get(`gw:mock:${T}`)) !== undefined).toBe(keeps);
      expect(released).toEqual(keeps ? [] : [`gw:mock:${T}`]);
    },
  );
});

describe("a run manager that can neither continue nor release runs", () => {
  it("boots; the interrupted turn ends with the failure reply, its checkpoint removed, the log saying why", async () => {
    const dir = tempDir();
    await diedWhileApprovedToolRan(openRig, dir, T);
    const b = await openRig({
      dir,
      adaptRuns: (runs) => Object.assign(runs, { continueInterrupted: undefined, release: undefined }),
    });
    await until(() => b.gateway.textsTo(T).length === 1, "the failure reply");
    expect(errorsOf(b)).toMatchObject([
      {
        msg: "could not continue an interrupted turn",
        err: { message: "the run manager cannot continue interrupted runs" },
      },
    ]);
    expect(await b.db.runStore.get(`gw:mock:${T}`)).toBeUndefined();
  });
});
