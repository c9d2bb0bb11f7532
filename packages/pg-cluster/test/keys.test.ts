import { describe, expect, it } from "vitest";
import { advisoryKey, leaderLockName } from "../src/index.js";
import { advisoryKeyText, keptKeyTexts } from "../src/keys.js";

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

describe("advisory keys in decimal (advisoryKeyText, kept for recent names)", () => {
  it("are advisoryKey's in decimal, the same asked again, for more names than it keeps and after", () => {
    expect(advisoryKeyText("abc")).toBe(BigInt.asIntN(64, 0xba7816bf8f01cfean).toString());
    const names = Array.from({ length: 5000 }, (_, i) => `agentsvc:thread:http:t${i}`);
    for (const name of names) expect(advisoryKeyText(name)).toBe(advisoryKey(name).toString());
    // The first names were let go to keep the bound: computed again, the same.
    for (const name of [...names.slice(0, 10), ...names.slice(-10)])
      expect(advisoryKeyText(name)).toBe(advisoryKey(name).toString());
  });

  it("keeps no more than 4,096 names, and at least the last 2,048", () => {
    for (let i = 0; i < 10_000; i++) advisoryKeyText(`agentsvc:thread:http:bound${i}`);
    expect(keptKeyTexts()).toBeLessThanOrEqual(4096);
    expect(keptKeyTexts()).toBeGreaterThanOrEqual(2048);
  });
});
