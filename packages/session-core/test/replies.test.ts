// A reply becomes outbox pieces: formatted, then cut by the gateway's own `chunk` when it has one
// (a markup platform that counts visible text), else by chunkText at its message limit.
import { describe, expect, it } from "vitest";
import { textPieces } from "../src/replies.js";
import { createMockGateway } from "../src/testing/index.js";

describe("reply pieces", () => {
  it("cuts at the message limit with chunkText when the gateway has no chunk of its own", () => {
    const gateway = createMockGateway({ messageLimit: 4 });
    const pieces = textPieces(gateway, "t", "abcdefghij", "k").map(
      (p) => (p.payload as { text: string }).text,
    );
    expect(pieces).toEqual(["abcd", "efgh", "ij"]);
  });

  it("uses the gateway's chunk on the formatted text instead", () => {
    const gateway = Object.assign(createMockGateway({ messageLimit: 4 }), {
      format: (md: string) => `<${md}>`,
      chunk: (formatted: string) => formatted.split("e"),
    });
    const items = textPieces(gateway, "t", "abcdefghij", "k");
    expect(items.map((p) => (p.payload as { text: string }).text)).toEqual(["<abcd", "fghij>"]);
    expect(items.map((p) => p.idemKey)).toEqual(["k:0", "k:1"]);
  });
});
