// The session context's hooks `heard`, `platformCallSucceeded` and `reconnected` are optional
// (adapter-kit's GatewayContext): a context without them (an embedding, an older session) still gets
// its mail delivered and the poll goes on.
import { dovecotMissing } from "@agentsvc/testkit";
import { describe, expect, it } from "vitest";
import { fromAnn, useSteppedGateway } from "./stepped-gateway.js";

const { started } = useSteppedGateway();

describe.skipIf(dovecotMissing !== undefined)("a context without the optional hooks", () => {
  it("still gets new mail delivered, and the poll asks for its next round", async () => {
    const { box, ctx, delivered, round } = await started();
    delete ctx.heard;
    delete ctx.platformCallSucceeded;
    await box.append(fromAnn("h1", "x", "hello"));
    expect(await round()).toBe(100);
    expect(delivered.map((d) => d.text)).toEqual(["hello"]);
  });

  it("a poll that works again after a failure goes on without a reconnected hook", async () => {
    const { box, ctx, lines, round, abortedRound } = await started();
    delete ctx.reconnected;
    await box.append(fromAnn("h2", "x", "again"));
    expect(await abortedRound()).toBeGreaterThanOrEqual(100);
    expect(await round()).toBe(100);
    expect(lines.filter((l) => l.msg === "IMAP poll works again")).toHaveLength(1);
  });
});
