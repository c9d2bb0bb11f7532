import { gunzipSync, gzipSync } from "node:zlib";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type PageEntry, renderPage, THEME_TOKENS, tokenVar, writePage } from "../src/index.js";

const HOSTILE = `</title><script>window.__pwned=1</script><img src=x onerror="alert(1)">'"&`;

function configOf(html: string): Record<string, unknown> {
  const m = /<script type="application\/json" id="agentsvc-config">([\s\S]*?)<\/script>/.exec(html);
  expect(m).not.toBeNull();
  return JSON.parse(m![1]!) as Record<string, unknown>;
}

function styleOf(html: string): string {
  const m = /<style>([\s\S]*?)<\/style>/.exec(html);
  return m![1]!;
}

describe("renderPage", () => {
  it("escapes every branding string into the markup", () => {
    const entry: PageEntry = {
      path: "/chat",
      title: `T${HOSTILE}`,
      subtitle: `S${HOSTILE}`,
      welcome: `W${HOSTILE}`,
      placeholder: `P${HOSTILE}`,
      footer: `F${HOSTILE}`,
      icon: { kind: "emoji", value: "🤖" },
    };
    const html = renderPage(entry, "");
    const escaped =
      "&lt;/title&gt;&lt;script&gt;window.__pwned=1&lt;/script&gt;&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&#39;&quot;&amp;";
    for (const prefix of ["T", "S", "W", "P", "F"]) expect(html).toContain(prefix + escaped);
    expect(html).toContain(`<title>T${escaped}</title>`);
    expect(html).not.toContain("<script>window.__pwned");
    expect(html).not.toContain("<img src=x");
    // Exactly three script blocks: the early reads in <head>, the JSON config and the client.
    expect(html.match(/<script\b/g)).toHaveLength(3);
    expect(html).toMatch(
      /<head>[\s\S]*<script data-api-base="\/chat\/api" data-storage-prefix="agentsvc:\/chat:">[\s\S]*<\/head>/,
    );
  });

  it("writes the config block as JSON with < escaped so it cannot close the script", () => {
    const html = renderPage(
      { path: "/chat", title: "</script><script>alert(1)</script>", welcome: "a\u2028b" },
      "",
    );
    const raw = /<script type="application\/json" id="agentsvc-config">([\s\S]*?)<\/script>/.exec(html)![1]!;
    expect(raw).not.toContain("<");
    expect(raw).toContain("\\u003c/script\\u003e");
    const config = configOf(html);
    expect(config.title).toBe("</script><script>alert(1)</script>");
    expect(config.welcome).toBe("a\u2028b");
  });

  it("applies defaults and passes the flags, API base and sign-in to the client", () => {
    const plain = configOf(renderPage({ path: "/chat/" }, ""));
    expect(plain).toMatchObject({
      apiBase: "/chat/api",
      showReasoning: true,
      showToolCalls: true,
      signIn: false,
    });
    const flagged = configOf(
      renderPage({ path: "/", showReasoning: false, showToolCalls: false, users: [{ username: "a" }] }, ""),
    );
    expect(flagged).toMatchObject({
      apiBase: "/api",
      showReasoning: false,
      showToolCalls: false,
      signIn: true,
    });
  });

  it("turns theme tokens into custom properties for light and dark, with the theme file last", () => {
    const html = renderPage(
      {
        path: "/chat",
        theme: { accent: "#ff0066", bg: "rgb(250, 250, 250)", radius: "4px", dark: { bg: "#000000" } },
        themeDark: { fg: "#eeeeee" },
      },
      ".custom-theme-file { color: #123456 }",
    );
    const css = styleOf(html);
    // An accent without accentFg gets the more readable of white and near-black (here near-black).
    expect(css).toContain(":root{--accent:#ff0066;--bg:rgb(250, 250, 250);--radius:4px;--accent-fg:#111827}");
    // Brand accent carries into dark mode; dark overrides apply explicitly and by system preference.
    expect(css).toContain(
      ':root[data-theme="dark"]{--accent:#ff0066;--accent-fg:#111827;--bg:#000000;--fg:#eeeeee}',
    );
    expect(css).toContain(
      '@media (prefers-color-scheme:dark){:root:not([data-theme="light"]){--accent:#ff0066',
    );
    const tokens = css.indexOf(":root{--accent:#ff0066");
    const file = css.indexOf(".custom-theme-file");
    expect(tokens).toBeGreaterThan(css.indexOf("--bubble-assistant")); // after the defaults
    expect(file).toBeGreaterThan(tokens);
    expect(css.trimEnd().endsWith(".custom-theme-file { color: #123456 }")).toBe(true);
  });

  it("names a CSS variable for every theme token", () => {
    const css = styleOf(renderPage({ path: "/c" }, ""));
    for (const token of THEME_TOKENS) expect(css, token).toContain(`${tokenVar(token)}:`);
    expect(tokenVar("bubbleAssistantFg")).toBe("--bubble-assistant-fg");
  });

  it("refuses an unknown token, an unsafe token value and a theme file containing </style", () => {
    expect(() => renderPage({ path: "/c", theme: { accnt: "#fff" } }, "")).toThrow(
      /theme\.accnt: unknown theme token/,
    );
    expect(() => renderPage({ path: "/c", theme: { bg: "red;}body{display:none" } }, "")).toThrow(
      /theme\.bg/,
    );
    expect(() => renderPage({ path: "/c", themeDark: { fg: "</style>" } }, "")).toThrow(/theme\.dark\.fg/);
    expect(() => renderPage({ path: "/c" }, "a{}\n</STYLE><script>")).toThrow(/line 2: a literal "<\/style"/);
  });

  it("renders an emoji icon as header text and an inline SVG favicon", () => {
    const html = renderPage({ path: "/c", icon: { kind: "emoji", value: "🦊" } }, "");
    expect(html).toContain('<span class="brand-icon" aria-hidden="true">🦊</span>');
    const href = /<link rel="icon" href="([^"]+)">/.exec(html)![1]!;
    expect(href.startsWith("data:image/svg+xml,")).toBe(true);
    expect(decodeURIComponent(href.slice("data:image/svg+xml,".length))).toContain(">🦊</text></svg>");
  });

  it.each([
    ["/logo.svg"],
    ["https://cdn.example.com/brand/logo.png"],
    ["data:image/png;base64,iVBORw0KGgo="],
  ])("renders image icon %s as favicon and header image", (src) => {
    const html = renderPage({ path: "/c", icon: { kind: "image", src } }, "");
    expect(html).toContain(`<link rel="icon" href="${src}">`);
    expect(html).toContain(`<img class="brand-icon" src="${src}" alt="">`);
  });

  it.each([["javascript:alert(1)"], ["//evil.example/x.png"], ["data:text/html,x"], ['/a.png" onerror="x']])(
    "refuses image icon %j",
    (src) => {
      expect(() => renderPage({ path: "/c", icon: { kind: "image", src } }, "")).toThrow(/webui entry icon/);
    },
  );

  it("refuses a mount path that is not an absolute URL path", () => {
    expect(() => renderPage({ path: "chat" }, "")).toThrow(/webui entry path/);
    expect(() => renderPage({ path: "/a/../b" }, "")).toThrow(/webui entry path/);
  });

  it("stays within 30 KB gzipped", () => {
    const html = renderPage({ path: "/chat", title: "Budget" }, "");
    const gz = gzipSync(html, { level: 9 });
    expect(gunzipSync(gz).toString("utf8")).toBe(html);
    expect(gz.length).toBeLessThanOrEqual(30 * 1024);
  });

  it("loads nothing from the network: no external scripts, stylesheets or fonts", () => {
    const html = renderPage({ path: "/chat" }, "");
    expect(html).not.toMatch(/<script[^>]+src=/);
    expect(html).not.toMatch(/<link[^>]+rel="stylesheet"/);
    expect(html).not.toMatch(/@import|@font-face|url\(\s*["']?https?:/);
  });
});

describe("writePage", () => {
  it("writes <out>/<path>/index.html and returns its path", async () => {
    const out = await mkdtemp(join(tmpdir(), "webui-page-"));
    try {
      const file = await writePage(out, { path: "/team/chat/", title: "Team" }, "");
      expect(file).toBe(join(out, "team", "chat", "index.html"));
      expect(await readFile(file, "utf8")).toBe(renderPage({ path: "/team/chat/", title: "Team" }, ""));
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
