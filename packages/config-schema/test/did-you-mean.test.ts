import { describe, expect, it } from "vitest";
import { closest, didYouMean } from "../src/did-you-mean.js";

describe("closest", () => {
  it("finds the word a typo was meant to be: a swap, a missing or an extra letter", () => {
    const verbs = ["init", "check", "build", "start", "dev", "hash-password"];
    expect(closest("strat", verbs)).toBe("start");
    expect(closest("chek", verbs)).toBe("check");
    expect(closest("buildd", verbs)).toBe("build");
    expect(closest("instructons", ["instructions", "tools", "toolServers"])).toBe("instructions");
  });

  it("suggests nothing for a word that is not near any known one", () => {
    expect(closest("deploy", ["init", "check", "build", "start", "dev"])).toBeUndefined();
    expect(didYouMean("zzz", ["port", "host"])).toBe("");
    expect(didYouMean("--prot", ["--port", "--host"])).toBe('; did you mean "--port"?');
  });
});
