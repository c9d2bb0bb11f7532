// The table of documented Matrix payloads (packages/testkit/fixtures/matrix, one file per case): each
// goes through the fake's /sync to the real gateway in a real session (testkit's fixture runner), and
// the outcome is what the adapter handed the session or the reason it logged for ignoring it.
import { type MatrixEvent, MatrixFake, within } from "@agentsvc/testkit";
import { connectionFixtureTable, expectCommonOutcome } from "@agentsvc/testkit/session";
import { expect } from "vitest";
import { createGateway } from "../src/index.js";

interface Fixture {
  source: string;
  case: string;
  room: string;
  members: number;
  payload: Omit<MatrixEvent, "room_id">;
  expect: { outcome: string; reply?: { markdown: string; href: string } };
}

connectionFixtureTable<Fixture, MatrixFake, ReturnType<typeof createGateway>>({
  platform: "matrix",
  minimum: 10,
  cites: "every fixture cites the client-server API section its shape follows",
  source: /^https:\/\/spec\.matrix\.org\/latest\/client-server-api\/#/,
  start: async () => {
    const fake = await MatrixFake.start();
    const gateway = createGateway({
      name: "matrix",
      accessTokenEnvVar: "MATRIX_TOKEN",
      env: { MATRIX_TOKEN: fake.token },
      homeserverUrl: fake.url,
      pollTimeoutMs: 1_000,
    });
    return { fake, gateway, connected: () => fake.firstSync(), connection: "the first sync" };
  },
  each: async (f, { fake, gateway, run }) => {
    const eventId = fake.pushEvent(f.room, f.payload, f.members);
    await within(fake.confirmed(eventId), 5_000, `confirmation of ${f.file}`);
    expect(await expectCommonOutcome(run, f.expect)).toBe(true);
    const reply = f.expect.reply;
    if (reply) {
      const pieces = gateway.chunk(reply.markdown);
      for (const [i, piece] of pieces.entries())
        await gateway.send(f.room, piece, { idempotencyKey: `fixture-${i}`, attempt: 1 });
      // The session answered the message too: only the pieces sent here are read.
      const sent = fake.sent.filter((s) => s.txnId.startsWith("fixture-")).map((s) => s.content);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({ msgtype: "m.text", format: "org.matrix.custom.html" });
      expect(String(sent[0]?.formatted_body)).toContain(`href="${reply.href}"`);
      expect(String(sent[0]?.body)).toContain(reply.href);
    }
  },
});
