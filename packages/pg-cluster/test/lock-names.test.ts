// Lock names and their keys (keys.ts): every instance, whatever its version, must derive the same
// name and key for the same thing, and a name with an empty part must be refused rather than
// silently shared (an empty gateway or thread would make unrelated conversations contend).
import { describe, expect, it } from "vitest";
import { advisoryKey, leaderLockName, threadKey, threadLockName } from "../src/index.js";

describe("lock names", () => {
  it("a leadership without a name is refused", () => {
    expect(() => leaderLockName("")).toThrow("leadership name: must not be empty");
    expect(leaderLockName(" ")).toBe("agentsvc:leader: ");
  });

  it("a thread key needs a gateway and a thread; a gateway may not contain the separator", () => {
    expect(() => threadKey("", "chat:1")).toThrow(/gateway must be non-empty and without ":" \(got ""\)/);
    expect(() => threadKey("a:b", "1")).toThrow(/\(got "a:b"\)/);
    expect(() => threadKey("telegram", "")).toThrow("threadKey: thread must not be empty");
    expect(threadKey("telegram", "chat:1")).toBe("telegram:chat:1");
  });

  it("a thread lock without a key is refused", () => {
    expect(() => threadLockName("")).toThrow("thread lock key: must not be empty");
    expect(threadLockName("x")).toBe("agentsvc:thread:x");
  });

  it("a name with non-ASCII characters is hashed as its UTF-8 bytes", () => {
    // printf 'é' | sha256sum = 4a99557e4033c353...; printf 'agentsvc:thread:télégramme:1' | sha256sum = 634a624bf83d459b...
    expect(advisoryKey("é")).toBe(BigInt.asIntN(64, 0x4a99557e4033c353n));
    expect(advisoryKey(threadLockName(threadKey("télégramme", "1")))).toBe(
      BigInt.asIntN(64, 0x634a624bf83d459bn),
    );
  });
});
