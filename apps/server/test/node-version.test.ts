import { describe, expect, it } from "vitest";
import { startServer } from "../src/index.js";
import { assertSupportedNode } from "../src/node-version.js";

describe("the Node version check", () => {
  it("refuses Node 20 naming the version found and the fix", () => {
    expect(() => assertSupportedNode("20.20.2")).toThrow(
      /agentsvc needs Node 22 or newer \(found v20\.20\.2\).*nvm install 22/,
    );
  });

  it("accepts Node 22 and later", () => {
    expect(() => assertSupportedNode("22.0.0")).not.toThrow();
    expect(() => assertSupportedNode("24.11.1")).not.toThrow();
  });

  it("startServer checks it before touching the project", async () => {
    const real = process.versions.node;
    Object.defineProperty(process.versions, "node", { value: "20.20.2", configurable: true });
    try {
      // No project at all: the version is checked before anything reads it.
      await expect(startServer(undefined as never)).rejects.toThrow(
        /needs Node 22 or newer \(found v20\.20\.2\)/,
      );
    } finally {
      Object.defineProperty(process.versions, "node", { value: real, configurable: true });
    }
  });
});
