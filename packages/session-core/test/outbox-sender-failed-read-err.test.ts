// The outbox sender's log of a failed due read carries the failure's own message as `err` (what an
// operator searches for), for a read refused for want of a role (a warning) as for any other
// failure (an error); a thrown value that is not an Error is logged as its string.
import { describe, expect, it } from "vitest";
import { MockGateway } from "../src/testing/index.js";
import { piece, useSender } from "./outbox-harness.js";

const setUp = useSender();

async function failedRead(thrown: unknown) {
  const { store, sender, lines } = setUp([new MockGateway({ name: "mock" })], {
    idlePollMs: 600_000,
    // The look again after a failed pass: not within the test.
    baseDelayMs: 600_000,
  });
  await store.outbox.enqueue([piece("mock", "A", "a1")]);
  store.outbox.due = async () => {
    throw thrown;
  };
  sender.start();
  await sender.settled();
  return lines.filter((l) => (l.level as number) >= 40).map((l) => [l.level, l.err]);
}

describe("a failed due read of the outbox sender logs the failure's message as err", () => {
  it("refused for want of a role: the warning carries the refusal's message", async () => {
    const refused = Object.assign(new Error("the outbox roles are no longer all held"), {
      code: "role_not_held",
    });
    expect(await failedRead(refused)).toEqual([[40, "the outbox roles are no longer all held"]]);
  });

  it("refused, thrown as a plain object with the code: the warning carries it as a string", async () => {
    expect(await failedRead({ code: "role_not_held" })).toEqual([[40, "[object Object]"]]);
  });

  it("failed for another reason: the error carries the failure's message", async () => {
    expect(await failedRead(new Error("connection terminated"))).toEqual([[50, "connection terminated"]]);
  });

  it("failed with a thrown string: the error carries that string", async () => {
    expect(await failedRead("socket hang up")).toEqual([[50, "socket hang up"]]);
  });
});
