import { describe, expect, it } from "vitest";
import { isSafeUrl, renderMarkdown } from "../src/client/markdown.js";

// Every tag the renderer may emit, with the attributes each may carry.
const ALLOWED: Record<string, string[]> = {
  p: [],
  br: [],
  strong: [],
  em: [],
  code: ["class"],
  pre: [],
  a: ["href", "target", "rel"],
  ul: [],
  ol: ["start"],
  li: [],
  h1: [],
  h2: [],
  h3: [],
  h4: [],
  h5: [],
  h6: [],
};

/** Fails unless the HTML holds only allowed tags/attributes, safe hrefs, and no stray `<`. */
function assertSafeHtml(html: string): void {
  const tag = /<(\/?)([a-z0-9]+)((?:\s+[a-z-]+="[^"<>]*")*)\s*>/g;
  let rest = html;
  for (const m of html.matchAll(tag)) {
    const [whole, closing, name, attrs] = m;
    expect(ALLOWED, `tag <${name}> in ${html}`).toHaveProperty(name!);
    if (closing) expect(attrs).toBe("");
    for (const a of attrs!.matchAll(/([a-z-]+)="([^"]*)"/g)) {
      expect(ALLOWED[name!], `attribute ${a[1]} on <${name}> in ${html}`).toContain(a[1]);
      if (a[1] === "href") expect(/^(https?:\/\/|mailto:)/i.test(a[2]!), `href ${a[2]}`).toBe(true);
      if (a[1] === "class") expect(a[2]).toMatch(/^language-[\w+#.-]+$/);
      if (a[1] === "start") expect(a[2]).toMatch(/^\d+$/);
    }
    rest = rest.replace(whole, "");
  }
  // With every legitimate tag removed, no markup-starting `<` may remain.
  expect(rest, `stray markup in ${html}`).not.toMatch(/</);
}

describe("markdown rendering", () => {
  it("renders bold, italic and inline code", () => {
    expect(renderMarkdown("a **b** *c* _d_ `e`")).toBe(
      "<p>a <strong>b</strong> <em>c</em> <em>d</em> <code>e</code></p>",
    );
  });

  it("leaves markdown inside code untouched", () => {
    const html = renderMarkdown("`snake_case` `__init__` `**` and ``a `tick` b``");
    expect(html).toBe(
      "<p><code>snake_case</code> <code>__init__</code> <code>**</code> and <code>a `tick` b</code></p>",
    );
  });

  it("does not italicise underscores inside words or lone asterisks", () => {
    expect(renderMarkdown("snake_case_name and 2 * 3 * 4")).toBe("<p>snake_case_name and 2 * 3 * 4</p>");
  });

  it("renders fenced code with its language and keeps its content literal", () => {
    const html = renderMarkdown("```python\ndef __init__(self):\n    return **kw  # <b>\n```\nafter");
    expect(html).toBe(
      '<pre><code class="language-python">def __init__(self):\n    return **kw  # &lt;b&gt;</code></pre><p>after</p>',
    );
  });

  it("renders an unclosed fence to the end as code (mid-stream)", () => {
    expect(renderMarkdown("```\nline 1\n- not a list")).toBe("<pre><code>line 1\n- not a list</code></pre>");
  });

  it("renders headings of every level", () => {
    expect(renderMarkdown("# One\n###### Six ##")).toBe("<h1>One</h1><h6>Six</h6>");
  });

  it("renders bullet lists, nested lists and numbered lists with their start", () => {
    expect(renderMarkdown("- a\n- b\n  - b1\n- c")).toBe(
      "<ul><li>a</li><li>b<ul><li>b1</li></ul></li><li>c</li></ul>",
    );
    expect(renderMarkdown("3. x\n4. y")).toBe('<ol start="3"><li>x</li><li>y</li></ol>');
    expect(renderMarkdown("1. x\n\n2. y")).toBe("<ol><li>x</li><li>y</li></ol>");
  });

  it("keeps line breaks inside a paragraph and splits paragraphs on blank lines", () => {
    expect(renderMarkdown("one\ntwo\n\nthree")).toBe("<p>one<br>two</p><p>three</p>");
  });

  it("renders http, https and mailto links, including a URL with parentheses", () => {
    const html = renderMarkdown("[w](https://en.wikipedia.org/wiki/A_(b)) [m](mailto:a@b.c) <http://x.org>");
    expect(html).toContain('<a href="https://en.wikipedia.org/wiki/A_(b)" target="_blank"');
    expect(html).toContain('href="mailto:a@b.c"');
    expect(html).toContain('href="http://x.org"');
    assertSafeHtml(html);
  });

  it("links bare URLs without swallowing trailing punctuation", () => {
    const html = renderMarkdown("see https://example.com/a?b=1&c=2. ok");
    expect(html).toContain('href="https://example.com/a?b=1&amp;c=2"');
    expect(html).toContain("</a>. ok");
  });

  it("renders emphasis and code inside a link label", () => {
    expect(renderMarkdown("[**go** `x_y`](https://e.com)")).toBe(
      '<p><a href="https://e.com" target="_blank" rel="noopener noreferrer nofollow"><strong>go</strong> <code>x_y</code></a></p>',
    );
  });

  it("escapes raw HTML instead of rendering it", () => {
    expect(renderMarkdown("<b>hi</b> & 'q' \"d\"")).toBe(
      "<p>&lt;b&gt;hi&lt;/b&gt; &amp; &#39;q&#39; &quot;d&quot;</p>",
    );
  });

  it("renders no images", () => {
    const html = renderMarkdown("![alt](https://e.com/x.png)");
    expect(html).not.toContain("<img");
    assertSafeHtml(html);
  });
});

describe("link target policy", () => {
  it.each([
    ["https://a.b", true],
    ["http://a.b/c?d#e", true],
    ["mailto:x@y.z", true],
    ["javascript:alert(1)", false],
    ["JAVASCRIPT:alert(1)", false],
    [" javascript:alert(1)", false],
    ["java\tscript:alert(1)", false],
    ["data:text/html,<script>alert(1)</script>", false],
    ["vbscript:msgbox(1)", false],
    ["//evil.example/x", false],
    ["/relative", false],
    ['https://a.b" onmouseover="x', false],
    ["https:///path-without-host", false],
  ])("%j allowed: %s", (url, ok) => {
    expect(isSafeUrl(url)).toBe(ok);
  });
});

// Payloads a hostile model (or a prompt-injected page it quotes) could emit.
const XSS_CORPUS = [
  "<img src=x onerror=alert(1)>",
  '<img src="x" onerror="window.__pwned=1">',
  "<svg onload=alert(1)>",
  "<svg><script>alert(1)</script></svg>",
  "<script>alert(1)</script>",
  "<iframe src=javascript:alert(1)></iframe>",
  "<a href=javascript:alert(1)>x</a>",
  "[click](javascript:alert(1))",
  "[click](JaVaScRiPt:alert(1))",
  "[click]( javascript:alert(1))",
  "[click](java\tscript:alert(1))",
  "[click](&#106;avascript:alert(1))",
  "[click](javascript&#58;alert(1))",
  "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
  "[click](vbscript:msgbox(1))",
  '[x](https://a.com" onmouseover="alert(1))',
  '[x](https://a.com"onmouseover="alert(1))',
  "[x](https://a.com'onmouseover='alert(1))",
  "[x](https://a.com><script>alert(1)</script>)",
  "<javascript://%0aalert(1)>",
  "<javascript:alert(1)>",
  '<https://a.com"onmouseover="alert(1)>',
  "[[x](javascript:alert(1))](https://ok.example)",
  "[<img src=x onerror=alert(1)>](https://ok.example)",
  "**<img src=x onerror=alert(1)>**",
  "`</code><img src=x onerror=alert(1)>`",
  '```"><img src=x onerror=alert(1)>\nbody\n```',
  "```js onmouseover=alert(1)\ncode\n```",
  "# <script>alert(1)</script>",
  "- <img src=x onerror=alert(1)>\n1. <svg onload=alert(1)>",
  "https://a.com/<script>alert(1)</script>",
  "\uE0000\uE001<img src=x onerror=alert(1)>",
  "<!-- <img src=x onerror=alert(1)> -->",
  "<style>*{display:none}</style>",
  "<math><mi xlink:href=javascript:alert(1)>x</mi></math>",
];

describe("XSS corpus", () => {
  it.each(XSS_CORPUS)("renders %j as inert text and safe tags only", (payload) => {
    const html = renderMarkdown(payload);
    assertSafeHtml(html);
    expect(html).not.toMatch(/<(img|svg|script|iframe|style|math)\b/i);
    expect(html).not.toMatch(/href="(?!https?:\/\/|mailto:)/i);
  });

  it("keeps the text of a refused link visible", () => {
    expect(renderMarkdown("[click me](javascript:alert(1))")).toBe("<p>click me</p>");
  });

  it("survives randomly assembled markdown fragments", () => {
    const parts = [
      "**",
      "*",
      "_",
      "__",
      "`",
      "```",
      "[",
      "](",
      ")",
      "<",
      ">",
      '"',
      "'",
      "\n",
      "- ",
      "1. ",
      "# ",
      "javascript:",
      "https://x.y",
      "onerror=",
      "<img ",
      "&",
      "&#",
      "\uE000",
      "\uE001",
    ];
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    for (let n = 0; n < 3000; n++) {
      let src = "";
      for (let k = 0; k < 12; k++) src += parts[rand() % parts.length] + (rand() % 3 === 0 ? "a" : "");
      assertSafeHtml(renderMarkdown(src));
    }
  });
});
