// Every documented signal-cli payload in testkit/fixtures/signal, through the fake daemon: a
// `receive` notification on the events stream (delivered or ignored with its reason), or the
// result of a `send` (sent, or the outbox's verdict). A new fixture file is a new row.
import { isGatewaySendError } from "@agentsvc/adapter-kit";
import { eventually, type FakeSignalDaemon, startSignalDaemon } from "@agentsvc/testkit";
import { loadFixtures } from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { SignalGateway } from "../src/index.js";
import { testContext } from "./context.js";
import { ACCOUNT } from "./harness.js";

type Expect =
  | { outcome: "delivered"; text: string; author: string; thread: string }
  | { outcome: "ignored"; reason: string }
  | { outcome: "sent"; messageId: string }
  | { outcome: "send-failed"; kind: "retry" | "permanent" };
interface Fixture {
  source: string;
  case: string;
  payload: { envelope: Record<string, unknown>; account: string } | { sendResult: unknown };
  expect: Expect;
}

const FIXTURES = loadFixtures<Fixture>("signal").map((fx) => ({ file: fx.file, fx }));

let daemon: FakeSignalDaemon | undefined;
let gateway: SignalGateway | undefined;
afterEach(async () => {
  await gateway?.stop();
  await daemon?.close();
  gateway = undefined;
  daemon = undefined;
});

describe("signal fixtures", () => {
  it("cover the minimum case list, each citing its source", () => {
    expect(FIXTURES.length).toBeGreaterThanOrEqual(20);
    for (const { file, fx } of FIXTURES) {
      expect(fx.source, file).toMatch(/^https:\/\/github\.com\/AsamK\/signal-cli\//);
      expect(fx.case, file).toBeTruthy();
    }
  });

  for (const { file, fx } of FIXTURES) {
    it(`${file}: ${fx.case} -> ${fx.expect.outcome}`, async () => {
      daemon = await startSignalDaemon({ accounts: [ACCOUNT, "+15550008888"] });
      const t = testContext({ SIGNAL_ACCOUNT: ACCOUNT });
      gateway = new SignalGateway({ accountEnvVar: "SIGNAL_ACCOUNT", httpUrl: daemon.url });
      await gateway.start(t.ctx);
      await eventually(() => gateway?.connected === true, "the events stream");
      const want = fx.expect;

      if ("sendResult" in fx.payload) {
        daemon.failNext({ kind: "result", result: fx.payload.sendResult });
        const outcome = await gateway
          .send("+15550000001", "hello", { idempotencyKey: "k", attempt: 1 })
          .catch((e: unknown) => e);
        if (want.outcome === "sent") expect(outcome).toEqual({ messageId: want.messageId });
        else if (want.outcome === "send-failed") {
          expect(isGatewaySendError(outcome), String(outcome)).toBe(true);
          expect((outcome as { permanent: boolean }).permanent).toBe(want.kind === "permanent");
        } else throw new Error(`${file}: a send result cannot be ${want.outcome}`);
        return;
      }

      const ignoredBefore = t.logs.filter((l) => l.msg === "signal event ignored").length;
      daemon.receiveRaw(fx.payload.account, fx.payload.envelope);
      if (want.outcome === "delivered") {
        await eventually(() => t.delivered.length === 1, "the delivery");
        expect(t.delivered[0]).toMatchObject({
          text: want.text,
          thread: want.thread,
          author: { id: want.author },
        });
      } else if (want.outcome === "ignored") {
        await eventually(
          () => t.logs.filter((l) => l.msg === "signal event ignored").length > ignoredBefore,
          "the ignore line",
        );
        const line = t.logs.filter((l) => l.msg === "signal event ignored").at(-1);
        expect(String(line?.reason)).toContain(want.reason);
        expect(line?.level).toBe(20);
        expect(t.delivered).toHaveLength(0);
      } else throw new Error(`${file}: an event cannot be ${want.outcome}`);
    });
  }
});
