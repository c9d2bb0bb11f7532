import { describe, expect, it } from "vitest";
import { markdownToMail } from "../src/format.js";
import { createGateway } from "../src/index.js";

const gateway = createGateway({
  name: "email",
  imapHostEnvVar: "H",
  imapUsernameEnvVar: "U",
  imapPasswordEnvVar: "P",
  fromAddressEnvVar: "F",
});
/** What the gateway sends as text/plain: each piece of the reply rendered. */
const format = (md: string) => (gateway.chunk?.(md) ?? [md]).map(markdownToMail).join("\n\n");

describe("Markdown as a text/plain mail", () => {
  it("writes links and images as text <URL>, which every mail client makes clickable", () => {
    expect(format("See [the docs](https://example.com/docs) and ![chart](https://example.com/c.png).")).toBe(
      "See the docs <https://example.com/docs> and chart <https://example.com/c.png>.",
    );
    // A link whose text is its URL, and one with a title.
    expect(format('[https://example.com](https://example.com) [x](https://e.test "T")')).toBe(
      "<https://example.com> x <https://e.test>",
    );
  });

  it("leaves fenced and inline code, and everything else, as written", () => {
    const md = "# Plan\n\n- **one**\n- `[a](b)`\n\n```md\n[keep](https://example.com)\n```";
    expect(format(md)).toBe(md);
  });
});

// Issue #43 item 4: a link whose URL holds balanced parentheses was cut at the first ")" by the hand
// converter; the shared Markdown front end (#42) parses it as CommonMark does.
describe("e-mail formatting: links", () => {
  it("keeps a link URL with balanced parentheses whole (CommonMark link destinations may hold them)", () => {
    expect(format("see [Foo](https://en.wikipedia.org/wiki/Foo_(bar)) now")).toBe(
      "see Foo <https://en.wikipedia.org/wiki/Foo_(bar)> now",
    );
  });
});
