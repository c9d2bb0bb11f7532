import { describe, expect, it } from "vitest";
import { advisoryKey, leaderLockName } from "../src/index.js";

describe("advisory keys", () => {
  it("are the first 8 bytes of SHA-256 of the name, big-endian, signed", () => {
    // sha256("agentsvc:leader:x") is fixed forever; instances of different versions must agree.
    const name = leaderLockName("x");
    expect(name).toBe("agentsvc:leader:x");
    const again = advisoryKey(name);
    expect(advisoryKey(name)).toBe(again);
    expect(again >= -(2n ** 63n) && again < 2n ** 63n).toBe(true);
    // Known vectors: sha256("") = e3b0c442 98fc1c14 ..., sha256("abc") = ba7816bf 8f01cfea ...
    expect(advisoryKey("")).toBe(BigInt.asIntN(64, 0xe3b0c44298fc1c14n));
    expect(advisoryKey("abc")).toBe(BigInt.asIntN(64, 0xba7816bf8f01cfean));
    expect(advisoryKey("agentsvc:leader:a")).not.toBe(advisoryKey("agentsvc:leader:b"));
  });
});
