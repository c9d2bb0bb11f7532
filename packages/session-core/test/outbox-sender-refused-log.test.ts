// What an operator reads when the outbox sender's due read fails (outbox-sender.ts #pump): a read
// refused for want of an outbox role (another instance holds this one's roles: its link went away
// unnoticed) is a warning that says so, not "the store failed"; any other failure is an error.
import { describe, expect, it } from "vitest";
import { MockGateway } from "../src/testing/index.js";
import { piece, useSender } from "./outbox-harness.js";

const setUp = useSender();

async function failedRead(error: Error) {
  const { store, sender, lines } = setUp([new MockGateway({ name: "mock" })], {
    idlePollMs: 600_000,
    // The look again after a failed pass: not within the test.
    baseDelayMs: 600_000,
  });
  await store.outbox.enqueue([piece("mock", "A", "a1")]);
  store.outbox.due = async () => {
    throw error;
  };
  sender.start();
  await sender.settled();
  return lines.filter((l) => (l.level as number) >= 40).map((l) => [l.level, l.msg]);
}

describe("a failed due read of the outbox sender, as logged", () => {
  it("refused for want of a role (the store's role_not_held, as a cause too): a warning that another instance holds the roles", async () => {
    const refused = Object.assign(new Error("the outbox roles are no longer all held"), {
      code: "role_not_held",
    });
    expect(await failedRead(new Error("failed query", { cause: refused }))).toEqual([
      [
        40,
        "outbox: not sending: another instance holds this one's outbox roles (until this instance's roles change)",
      ],
    ]);
  });

  it("failed for another reason: an error that the store failed", async () => {
    expect(await failedRead(new Error("connection terminated"))).toEqual([
      [50, "outbox: the store failed while sending"],
    ]);
  });
});
