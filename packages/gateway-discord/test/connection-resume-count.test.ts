// Only resumes that fail count towards maxResumeFailures: a close after the session was READY or
// RESUMED is a first attempt again, so even with maxResumeFailures 1 each such close resumes the same
// session (https://discord.com/developers/docs/events/gateway#resuming) instead of identifying afresh.
import { eventually } from "@agentsvc/testkit";
import { afterEach, expect, it } from "vitest";
import { nextConnection, type Rigged, startCalmRig, stopRig } from "./rig.js";

let r: Rigged | undefined;
afterEach(async () => {
  await stopRig(r);
  r = undefined;
});

it("with maxResumeFailures 1, a close after READY and another after RESUMED each resume the same session", async () => {
  r = await startCalmRig({ maxResumeFailures: 1 });
  const x = r;
  const id = x.h.fake.sessions.current?.id;
  for (const after of [1, 2]) {
    x.h.fake.sessions.closeWith(4000, "Unknown error");
    const next = await nextConnection(x, after);
    await eventually(
      () => next.identified || next.resumedSession !== undefined,
      "a session on the new connection",
    );
    expect(next.resumedSession, `connection #${after + 1}`).toBe(id);
  }
  expect(x.h.logs.some((l) => l.msg === "resuming keeps failing; identifying afresh")).toBe(false);
});
