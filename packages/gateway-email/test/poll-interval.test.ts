// How long the poll task asks to wait when the entry names no milliseconds (as a config file never
// does): pollIntervalSeconds, a minute by default; failed polls back off from it up to 15 minutes.
import { createServer } from "node:net";
import { dovecotMissing } from "@agentsvc/testkit";
import { describe, expect, it } from "vitest";
import { fromAnn, useSteppedGateway } from "./stepped-gateway.js";

const { started } = useSteppedGateway();

/** A local port nobody listens on (bound, then released): a connection to it is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe.skipIf(dovecotMissing !== undefined)("the poll interval of a configured entry", () => {
  it("a poll that worked asks for the next one after pollIntervalSeconds", async () => {
    const { round } = await started({ pollIntervalMs: undefined, pollIntervalSeconds: 2 });
    expect(await round()).toBe(2_000);
  });

  it("failed polls wait a minute by default, then longer, never above 15 minutes (plus jitter)", async () => {
    const { round } = await started({
      pollIntervalMs: undefined,
      retryMaxMs: undefined,
      imapPort: await closedPort(),
    });
    const delays: (number | null)[] = [];
    for (let i = 0; i < 6; i++) delays.push(await round());
    const [first, second, , , fifth, sixth] = delays as number[];
    // Backoff: 60 s x 2^(n-1), at most 900 s, plus up to 20% jitter.
    expect(first).toBeGreaterThanOrEqual(60_000);
    expect(first).toBeLessThanOrEqual(72_000);
    expect(second).toBeGreaterThanOrEqual(120_000);
    for (const capped of [fifth, sixth]) {
      expect(capped).toBeGreaterThanOrEqual(900_000);
      expect(capped).toBeLessThanOrEqual(1_080_000);
    }
  });

  it("after a poll works again, the next failure waits the first delay again, not a longer one", async () => {
    const { box, round, abortedRound } = await started();
    await box.append(fromAnn("b1", "x", "one"));
    const first = (await abortedRound()) as number;
    const second = (await abortedRound()) as number;
    expect(second).toBeGreaterThan(first);
    expect(await round()).toBe(100);
    await box.append(fromAnn("b2", "x", "two"));
    // 100 ms plus up to 20% jitter: the backoff starts over.
    expect(await abortedRound()).toBeLessThanOrEqual(120);
  });
});
