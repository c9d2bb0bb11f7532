// A reply goes out as text/plain with a text/html alternative, both rendered from the reply's
// Markdown tree, through real SMTP (the sink parses what was sent). Issue #43 item 4's case: a link
// whose URL holds balanced parentheses stays whole in both parts.
import { dovecotMissing } from "@agentsvc/testkit";
import { describe, expect, it } from "vitest";
import { answeredConversation, until, useDovecot } from "./rig.js";

const dovecot = useDovecot();

describe.skipIf(dovecotMissing !== undefined)("email text and HTML", () => {
  it("sends a piece as text/plain and text/html: the link with parentheses whole, the model's HTML escaped", async () => {
    const rigged = await dovecot.rig();
    const { box } = rigged;
    const gateway = await answeredConversation(rigged, {
      id: "h1",
      subject: "Planets",
      text: "which planet is closest to the sun?",
    });
    const markdown =
      'See [Mercury](https://en.wikipedia.org/wiki/Mercury_(planet)), **the closest**; <script>alert("x")</script>\n\n| a | b |\n|---|---|\n| 1 | 2 |';
    const [piece, ...rest] = gateway.chunk(markdown);
    expect(rest).toEqual([]);
    await gateway.send("<h1@example.test>", piece as string, { idempotencyKey: "html-1", attempt: 1 });
    await until(() => box.sink.mails.length === 2, "the reply with its HTML part");
    const mail = box.sink.mails[1];
    expect(mail?.text).toContain(
      "See Mercury <https://en.wikipedia.org/wiki/Mercury_(planet)>, **the closest**",
    );
    const html = String(mail?.html);
    expect(html).toContain('<a href="https://en.wikipedia.org/wiki/Mercury_(planet)">Mercury</a>');
    expect(html).toContain("<strong>the closest</strong>");
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(html).not.toContain("<script");
    expect(html).toContain("<table><thead><tr><th>a</th><th>b</th></tr></thead>");
  });
});
