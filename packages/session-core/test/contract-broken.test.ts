// The contract suite must fail broken adapters, not only pass good ones: each variant below
// breaks one promise and the matching case has to reject.
import { describe, expect, it } from "vitest";
import type { DeliverResult, InteractionRequest, SendOptions, SendResult } from "../src/index.js";
import { ContractRig, contractCases, type GatewayHarness, MockGateway } from "../src/testing/index.js";
import { cursorHarness } from "./cursor-mock.js";
import { mockHarness } from "./mock-harness.js";

const CURSOR_CASE =
  "a cursor adapter reads a message whose recording failed again, ahead of later ones, across a restart";

class IgnoresThread extends MockGateway {
  override send(_thread: string, text: string, options?: SendOptions): Promise<SendResult | undefined> {
    return super.send("t-1", text, options);
  }
}
class RendersNothing extends MockGateway {
  override async requestDecision(_request: InteractionRequest): Promise<SendResult | undefined> {
    return undefined;
  }
}
class DeliversAfterStop extends MockGateway {
  #kept: MockGateway["context"] | undefined;
  override async start(context: MockGateway["context"]): Promise<void> {
    this.#kept = context;
    await super.start(context);
  }
  override async stop(): Promise<void> {}
  override inject(m: { thread: string; text: string; id?: string; author?: string }): Promise<DeliverResult> {
    return (this.#kept as MockGateway["context"]).deliver({
      dedupKey: m.id ?? "x",
      thread: m.thread,
      text: m.text,
      author: { id: m.author ?? "u" },
    });
  }
}
class AcksEarly extends MockGateway {
  override inject(m: { thread: string; text: string; id?: string; author?: string }): Promise<DeliverResult> {
    void super.inject(m);
    return Promise.resolve({ accepted: true, id: 0 });
  }
}
class FreshKeyPerDelivery extends MockGateway {
  override inject(m: { thread: string; text: string; id?: string; author?: string }): Promise<DeliverResult> {
    return super.inject({ ...m, id: `${m.id}-${Math.random()}` });
  }
}

async function runCase(title: string, harness: GatewayHarness): Promise<void> {
  const run = contractCases[title];
  if (!run) throw new Error(`no contract case "${title}"`);
  const rig = new ContractRig(harness);
  await rig.start();
  try {
    await run(rig, harness);
  } finally {
    await rig.stop();
  }
}

describe("contract suite v2 fails broken adapters", () => {
  it("an adapter that ignores the thread fails the own-thread case", async () => {
    await expect(
      runCase(
        "answers each message once, on the thread it came from",
        mockHarness(() => new IgnoresThread()),
      ),
    ).rejects.toThrow();
  });

  it("an adapter that renders no approval fails the approval case", async () => {
    await expect(
      runCase(
        "renders an approval request on the thread and applies the participant's decision once",
        mockHarness(() => new RendersNothing()),
      ),
    ).rejects.toThrow(/shows no request/);
  });

  it("an adapter that keeps delivering after stop fails the stop case", async () => {
    await expect(
      runCase(
        "delivers nothing after stop",
        mockHarness(() => new DeliversAfterStop()),
      ),
    ).rejects.toThrow();
  });

  it("an adapter that acknowledges before deliver resolves fails the acknowledgement case", async () => {
    await expect(
      runCase(
        "acknowledges the platform only after the message is recorded",
        mockHarness(() => new AcksEarly()),
      ),
    ).rejects.toThrow(/acknowledged before deliver resolved/);
  });

  it("an adapter that turns a redelivery into a new message fails the duplicate case", async () => {
    await expect(
      runCase(
        "a platform delivering the same message three times gets one turn and one reply",
        mockHarness(() => new FreshKeyPerDelivery()),
      ),
    ).rejects.toThrow();
  });

  it("a pulling adapter whose cursor moves past a message that was not recorded fails the cursor case", async () => {
    await expect(runCase(CURSOR_CASE, cursorHarness({ movesPastFailures: true }))).rejects.toThrow(
      /replies to #1 and #2/,
    );
  });

  it("a pulling adapter that reads a failed message again passes the cursor case", async () => {
    await runCase(CURSOR_CASE, cursorHarness({ movesPastFailures: false }));
  });
});
