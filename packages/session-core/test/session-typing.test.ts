// The typing indicator: shown when a turn starts on a platform that has one, and never in the way
// of the reply when it fails.
import { describe, expect, it } from "vitest";
import { MockGateway } from "../src/testing/index.js";
import { type Rig, until, useRig } from "./session-harness.js";

/** A platform with a typing indicator that records each call (or fails it when told to). */
class Typing extends MockGateway {
  readonly typing: { thread: string; meta: Record<string, unknown> | undefined }[] = [];
  fail = false;
  async startTyping(thread: string, meta?: Record<string, unknown>): Promise<void> {
    this.typing.push({ thread, meta });
    if (this.fail) throw new Error("typing endpoint down");
  }
}

const openRig = useRig();

async function withTyping(typing: boolean): Promise<[Rig, Typing]> {
  const gateway = new Typing({ name: "typer", capabilities: { typing } });
  return [await openRig({ extraGateways: [gateway] }), gateway];
}

const hello = (r: Rig, gateway: Typing) =>
  r.session.deliver({
    gateway: gateway.name,
    dedupKey: "m1",
    thread: "T",
    text: "hello",
    author: { id: "user-1" },
    meta: { channel: "C1" },
  });

describe("typing indicator", () => {
  it("is shown in the message's thread, with its platform meta, when the turn starts", async () => {
    const [r, gateway] = await withTyping(true);
    await hello(r, gateway);
    await until(() => gateway.textsTo("T").length === 1, "the reply");
    expect(gateway.typing).toEqual([{ thread: "T", meta: { channel: "C1" } }]);
  });

  it("is not asked for on a platform that says it has none", async () => {
    const [r, gateway] = await withTyping(false);
    await hello(r, gateway);
    await until(() => gateway.textsTo("T").length === 1, "the reply");
    expect(gateway.typing).toEqual([]);
  });

  it("failing does not keep the reply from being sent, and is logged", async () => {
    const [r, gateway] = await withTyping(true);
    gateway.fail = true;
    await hello(r, gateway);
    await until(() => gateway.textsTo("T").length === 1, "the reply");
    expect(gateway.textsTo("T")[0]).toContain("hello");
    const failed = () => r.logs.lines().filter((l) => l.msg === "typing indicator failed");
    await until(() => failed().length === 1, "the failure logged");
    // With the thread it failed in and why, for the operator looking into it.
    expect(failed()).toEqual([
      expect.objectContaining({
        thread: "T",
        err: expect.objectContaining({ message: "typing endpoint down" }),
      }),
    ]);
  });
});
