// Every documented signal-cli payload in testkit/fixtures/signal, through the fake daemon and
// testkit's fixture runner (a real session): a `receive` notification on the events stream
// (delivered or ignored with its reason: the common outcomes), or the result of a `send` (sent, or
// the outbox's verdict: Signal's own). A new fixture file is a new row.
import { isGatewaySendError } from "@agentsvc/adapter-kit";
import { eventually, type FakeSignalDaemon, startSignalDaemon } from "@agentsvc/testkit";
import {
  type CommonOutcome,
  expectCommonOutcome,
  type FixtureRun,
  loadFixtures,
  runFixtureGateway,
} from "@agentsvc/testkit/session";
import { afterEach, describe, expect, it } from "vitest";
import { SignalGateway } from "../src/index.js";
import { ACCOUNT } from "./harness.js";

type Expect =
  /** `attachments`: the refs handed over (this table's entry has no media block: files are refused, unfetched). */
  | (CommonOutcome & { attachments?: unknown[] })
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
let run: FixtureRun | undefined;
afterEach(async () => {
  await run?.rig.stop();
  await daemon?.close();
  run = undefined;
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
      const gateway = new SignalGateway({
        accountEnvVar: "SIGNAL_ACCOUNT",
        httpUrl: daemon.url,
        env: { SIGNAL_ACCOUNT: ACCOUNT },
      });
      run = await runFixtureGateway(gateway);
      await eventually(() => gateway.connected, "the events stream");
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

      daemon.receiveRaw(fx.payload.account, fx.payload.envelope);
      expect(await expectCommonOutcome(run, want), `${file}: an event cannot be ${want.outcome}`).toBe(true);
      if ("attachments" in want && want.attachments)
        expect(run.seen[0]?.attachments).toEqual(want.attachments);
    });
  }
});
