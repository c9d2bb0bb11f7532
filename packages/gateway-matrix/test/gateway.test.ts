// The gateway against the Matrix fake: approvals by reaction, transaction ids, the spec's errors,
// typing, and doctor's whoami (https://spec.matrix.org/latest/client-server-api/).
import { GatewaySendError } from "@agentsvc/adapter-kit";
import { eventually, MatrixFake, within } from "@agentsvc/testkit";
import { type FixtureRun, runFixtureGateway } from "@agentsvc/testkit/session";
import { startMatrixRig, stopMatrixRig } from "./matrix-rig.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGateway, doctor, type MatrixGateway } from "../src/index.js";

const ROOM = "!dm:example.org";
let fake: MatrixFake;
let run: FixtureRun;
let gateway: MatrixGateway;

beforeEach(async () => {
  ({ fake, run, gateway } = await startMatrixRig());
});

afterEach(() => stopMatrixRig({ fake, run }));

const text = (body: string) => ({ msgtype: "m.text", body });

describe("matrix gateway", () => {
  it("a 👍 reaction (m.annotation) on the approval request decides it for the reacting user", async () => {
    fake.userSends(ROOM, "@alice:example.org", text("please use delete_file report.txt"));
    await eventually(
      () => fake.sent.some((s) => /approve/i.test(String(s.content.body))),
      "the text request",
    );
    const request = fake.sent.find((s) => /approve/i.test(String(s.content.body)));
    const reaction = fake.userSends(
      ROOM,
      "@alice:example.org",
      { "m.relates_to": { rel_type: "m.annotation", event_id: request?.eventId, key: "👍" } },
      "m.reaction",
    );
    await within(fake.confirmed(reaction), 3_000, "the reaction read");
    await eventually(() => run.decided.length > 0, "the decision");
    expect(run.decided).toMatchObject([{ decision: "approve", by: "@alice:example.org", ok: true }]);
    await eventually(() => run.rig.executed.length === 1, "the approved tool");
  });

  it("a piece sent again with the same outbox key is one event (the key is the transaction id)", async () => {
    const first = await gateway.send(ROOM, "hello", { idempotencyKey: "k-1", attempt: 1 });
    const again = await gateway.send(ROOM, "hello", { idempotencyKey: "k-1", attempt: 2 });
    expect(again.messageId).toBe(first.messageId);
    expect(fake.sent.filter((s) => s.txnId === "k-1")).toHaveLength(1);
  });

  it("a thread reply carries the m.thread relation to its root", async () => {
    await gateway.send(`${ROOM}|$root:example.org`, "in thread", { idempotencyKey: "k-2", attempt: 1 });
    expect(fake.sent.at(-1)?.content["m.relates_to"]).toMatchObject({
      rel_type: "m.thread",
      event_id: "$root:example.org",
    });
  });

  it("429 M_LIMIT_EXCEEDED waits retry_after_ms; 401 M_UNKNOWN_TOKEN names the variable", async () => {
    fake.limitNext(1_234);
    const limited = await gateway.send(ROOM, "x", { idempotencyKey: "k-3", attempt: 1 }).catch((e) => e);
    expect(limited).toBeInstanceOf(GatewaySendError);
    expect(limited).toMatchObject({ retryAfterMs: 1_234, credentials: false });
    fake.failNext(401);
    const refused = await gateway.send(ROOM, "x", { idempotencyKey: "k-4", attempt: 1 }).catch((e) => e);
    expect(refused).toMatchObject({ credentials: true, envVar: "MATRIX_TOKEN" });
  });

  it("typing is PUT for the bot's own user in the room", async () => {
    fake.userSends(ROOM, "@alice:example.org", text("hi"));
    await eventually(() => fake.typing.length > 0, "typing");
    expect(fake.typing[0]).toEqual({ roomId: ROOM, typing: true });
  });

  it("doctor: whoami names the bot; a refused token fails naming the variable", async () => {
    const entry = { type: "matrix", accessTokenEnvVar: "MATRIX_TOKEN", homeserverUrl: fake.url };
    expect(await doctor(entry, { env: { MATRIX_TOKEN: fake.token }, projectDir: "." })).toMatchObject([
      { status: "ok", detail: `bot ${fake.userId}` },
    ]);
    const [bad] = await doctor(entry, { env: { MATRIX_TOKEN: "wrong" }, projectDir: "." });
    expect(bad).toMatchObject({ status: "failed", detail: "401 M_UNKNOWN_TOKEN" });
    expect(bad?.fix).toContain("MATRIX_TOKEN");
  });
});

describe("matrix gateway with a refused token", () => {
  it("a /sync answered 401 M_UNKNOWN_TOKEN stops the gateway naming the variable", async () => {
    const other = await MatrixFake.start();
    const refused = await runFixtureGateway(
      createGateway({
        name: "matrix",
        accessTokenEnvVar: "MATRIX_TOKEN",
        env: { MATRIX_TOKEN: "not-the-token" },
        homeserverUrl: other.url,
        pollTimeoutMs: 1_000,
      }),
    );
    try {
      await eventually(
        () => refused.logs.lines().some((l) => l.level >= 50 && JSON.stringify(l).includes("MATRIX_TOKEN")),
        "the error naming the variable",
      );
    } finally {
      await refused.rig.stop();
      await other.close();
    }
  });
});
