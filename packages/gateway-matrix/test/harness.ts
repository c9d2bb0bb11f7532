// The platform side for the contract suite: one Matrix fake behind every gateway instance the harness
// builds (a restart builds a new one against the same fake).
import type { GatewayHarness } from "@agentsvc/session-core/testing";
import { MatrixFake, within } from "@agentsvc/testkit";
import { createGateway, type MatrixGatewayOptions } from "../src/index.js";

export interface MatrixHarness extends GatewayHarness {
  fake: MatrixFake;
}

export async function matrixHarness(overrides: Partial<MatrixGatewayOptions> = {}): Promise<MatrixHarness> {
  const fake = await MatrixFake.start();
  // The same contract id is the same Matrix event (a redelivery is not something /sync does).
  const events = new Map<string, string>();
  return {
    fake,
    threads: ["!a:fake.local", "!b:fake.local"],
    // The adapter keeps its /sync position: a failed recording is read again from it.
    cursor: true,
    gateway: () =>
      createGateway({
        name: "matrix",
        accessTokenEnvVar: "MATRIX_TOKEN",
        env: { MATRIX_TOKEN: fake.token },
        homeserverUrl: fake.url,
        pollTimeoutMs: 1_000,
        pollGraceMs: 500,
        backoff: { baseMs: 20, maxMs: 200 },
        ...overrides,
      }),
    inject: async (m) => {
      await within(fake.firstSync(), 3_000, "the bot's first sync");
      const eventId =
        events.get(m.id) ??
        fake.userSends(m.thread, `@${m.author}:fake.local`, { msgtype: "m.text", body: m.text });
      events.set(m.id, eventId);
      await within(fake.confirmed(eventId), 3_000, `confirmation of ${eventId}`);
    },
    sent: async () =>
      fake.sent.map((s) => {
        const rel = s.content["m.relates_to"] as { event_id?: string } | undefined;
        return {
          thread: rel?.event_id ? `${s.roomId}|${rel.event_id}` : s.roomId,
          text: String(s.content.body),
        };
      }),
    failNext: (status) => {
      if (status === 429) fake.limitNext(200);
      else fake.failNext(500);
    },
    close: () => fake.close(),
  };
}
