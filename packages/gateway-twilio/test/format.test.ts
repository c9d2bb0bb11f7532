import { describe, expect, it } from "vitest";
import { toPlainText } from "../src/format.js";

describe("markdown to plain SMS text", () => {
  it("drops emphasis and heading marks, keeps words, and spells links out", () => {
    expect(toPlainText("# Status\n**Done**, *mostly* ~~late~~. See [docs](https://x.dev).")).toBe(
      "Status\nDone, mostly late. See docs (https://x.dev).",
    );
  });

  it("keeps the content of code without its fences and backticks", () => {
    expect(toPlainText("Run `npm test` then:\n```sh\nnpm run **build**\n```")).toBe(
      "Run npm test then:\nnpm run **build**",
    );
    expect(toPlainText("snake_case_name and 2 * 3")).toBe("snake_case_name and 2 * 3");
  });
});
