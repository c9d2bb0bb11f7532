import { describe, expect, it } from "vitest";
import { startServer } from "../src/index.js";
import { assertSupportedNode } from "../src/node-version.js";

describe("the Node version check", () => {
  it("refuses Node 20 naming the version found and the fix", () => {
    expect(() => assertSupportedNode("20.20.2")).toThrow(
      /agentsvc needs Node 22\.14 or newer \(found v20\.20\.2\).*nvm install 22/,
    );
  });

  it("refuses Node 22 before 22.14, whose better-sqlite3 open is a segmentation fault", () => {
    expect(() => assertSupportedNode("22.13.1")).toThrow(/needs Node 22\.14 or newer \(found v22\.13\.1\)/);
    expect(() => assertSupportedNode("22.0.0")).toThrow(/found v22\.0\.0/);
  });

  it("accepts Node 22.14 and later", () => {
    expect(() => assertSupportedNode("22.14.0")).not.toThrow();
    expect(() => assertSupportedNode("23.0.0")).not.toThrow();
    expect(() => assertSupportedNode("24.11.1")).not.toThrow();
  });

  it("startServer checks it before touching the project", async () => {
    const real = process.versions.node;
    Object.defineProperty(process.versions, "node", { value: "20.20.2", configurable: true });
    try {
      // No project at all: the version is checked before anything reads it.
      await expect(startServer(undefined as never)).rejects.toThrow(
        /needs Node 22\.14 or newer \(found v20\.20\.2\)/,
      );
    } finally {
      Object.defineProperty(process.versions, "node", { value: real, configurable: true });
    }
  });
});
