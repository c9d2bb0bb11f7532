// A reply goes out as text/plain with a text/html alternative, both rendered from the reply's
// Markdown tree, through real SMTP (the sink parses what was sent). Issue #43 item 4's case: a link
// whose URL holds balanced parentheses stays whole in both parts.
import { type Dovecot, dovecotMissing, startDovecot } from "@agentsvc/testkit";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { EmailGateway } from "../src/index.js";
import { emailRig, until } from "./rig.js";

let dovecot: Dovecot | undefined;
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});
afterAll(async () => {
  await dovecot?.close();
});

describe.skipIf(dovecotMissing !== undefined)("email text and HTML", () => {
  it("sends a piece as text/plain and text/html: the link with parentheses whole, the model's HTML escaped", async () => {
    dovecot ??= await startDovecot();
    const { rig, box, close } = await emailRig(dovecot);
    cleanup = close;
    await box.append({
      messageId: "<h1@example.test>",
      from: "ann@example.test",
      subject: "Planets",
      text: "which planet is closest to the sun?",
    });
    await until(() => box.sink.mails.length === 1, "the first reply");
    await rig.session.idle(10_000);
    const gateway = rig.gateway as EmailGateway;
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
