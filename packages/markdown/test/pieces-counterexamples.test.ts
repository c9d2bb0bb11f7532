// Counterexamples fast-check found in the pieces properties (test/pieces-property.test.ts) on long
// local runs (MARKDOWN_PROPERTY_RUNS), each kept as the behaviour it broke.
import { describe, expect, it } from "vitest";
import { discordPieces, slackPieces, toDiscord, toMrkdwn } from "../src/index.js";

describe("pieces show what the whole shows", () => {
  it("Slack: a list item of raw HTML written back alone keeps the text after the tag as text, not a link", () => {
    // Seed 7, path 12327:3:8:7:7: `<script>` opens an HTML block, so the whole shows `[é](…)` as
    // typed; the item, written back with the block as a bare text node, lost its escapes and the
    // piece showed a link (shorter, so it was the one that fitted 83).
    const md = "- <script>x</script> [é](https://en.wikipedia.org/wiki/Mercury_(planet))\n\n- alpha";
    const pieces = slackPieces(md, 83).map(toMrkdwn);
    // The brackets shown as typed, no `<url|é>` link (the bare URL may be Slack's `<url>`, as Slack
    // links a URL in text anyway).
    expect(pieces.join("\n")).toContain("[é](");
    expect(pieces.join("\n")).not.toContain("|é>");
    for (const piece of pieces) expect(piece.length, piece).toBeLessThanOrEqual(83);
  });

  it("Discord: a bare URL in text the model typed is sent without backslashes, so the link Discord makes of it is the URL", () => {
    // Seed 7, path 1694:5:4:4:4 (limit 16): text of an HTML block holding a URL was escaped like any
    // text, `Mercury\_(planet)`; Discord links a bare URL backslashes and all, so the whole reply's
    // link was broken while the pieces (the URL cut, no longer a link) read `_`.
    expect(toDiscord("<script>x</script> https://en.wikipedia.org/wiki/Mercury_(planet) *b*")).toBe(
      "\\<script\\>x\\</script\\> https://en.wikipedia.org/wiki/Mercury_(planet) \\*b\\*",
    );
    const md = "- <script>x</script> ![alpha](https://en.wikipedia.org/wiki/Mercury_(planet))\n- alpha";
    const pieces = discordPieces(md, 16);
    for (const piece of pieces) expect(piece.length, piece).toBeLessThanOrEqual(16);
    // Cut, the URL is text again: its markup is escaped there.
    expect(pieces.join("")).toContain("ercury\\_(plane");
  });

  it("Discord: a mention inside a bare URL is still escaped", () => {
    // Followed by the tag's `\<`, the URL is `<url>` (render.test.ts, raw HTML's bare URLs).
    expect(toDiscord("<p>https://e.test/@everyone</p>")).toBe("\\<p\\><https://e.test/\\@everyone>\\</p\\>");
  });
});
