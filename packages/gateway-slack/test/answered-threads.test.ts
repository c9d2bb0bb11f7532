// The remembered threads are bounded (least recently answered drops out) and durable.
import { captureLogs } from "@agentsvc/testkit";
import { describe, expect, it } from "vitest";
import { AnsweredThreads } from "../src/answered-threads.js";
import { recordingContext } from "./context.js";

describe("answered threads", () => {
  it("keeps the most recently answered threads up to the limit, in the gateway's state", async () => {
    const rec = recordingContext(captureLogs().logger);
    const threads = new AnsweredThreads(rec.context.state, rec.context.logger, 3);
    await threads.load();
    for (const t of ["C1:1", "C1:2", "C1:3"]) await threads.remember(t);
    await threads.remember("C1:1"); // answered again: now the most recent
    await threads.remember("C1:4");
    expect(["C1:1", "C1:2", "C1:3", "C1:4"].map((t) => threads.has(t))).toEqual([true, false, true, true]);
    const again = new AnsweredThreads(rec.context.state, rec.context.logger, 3);
    await again.load();
    expect(["C1:1", "C1:2", "C1:3", "C1:4"].map((t) => again.has(t))).toEqual([true, false, true, true]);
    rec.stop();
  });
});
