// For random Markdown built from the pieces models write (emphasis, links with and without
// parentheses, code spans, fences, tables, lists, raw HTML, stray markup characters), every
// platform's rendering is valid in that platform's format.
import { parseTelegramHtml } from "@agentsvc/testkit";
import fc from "fast-check";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { describe, expect, it } from "vitest";
import { splitHtml, toDiscord, toMailText, toMrkdwn, toTelegramHtml } from "../src/index.js";
import { markdown, url, word } from "./arbitraries.js";
import { propertyTimeout, runs } from "./runs.js";

/**
 * Slack mrkdwn is valid when every `<` opens a `<url>` or `<url|text>` token and no `>` stands alone
 * but a quote's `> ` at the start of a line.
 */
function slackValid(mrkdwn: string): boolean {
  return !/[<>]/.test(mrkdwn.replace(/^(> )+/gm, "").replace(/<[^<>|\s]+(\|[^<>|]*)?>/g, ""));
}

describe("random Markdown renders valid platform text", { timeout: propertyTimeout(20_000) }, () => {
  it("Telegram HTML always parses, with every link target intact", () => {
    fc.assert(
      fc.property(markdown, (md) => {
        const html = toTelegramHtml(md);
        const parsed = parseTelegramHtml(html);
        expect(parsed.ok, `${md}\n=> ${html}`).toBe(true);
        // A target is never cut at a `)`: every href holds balanced parentheses.
        for (const m of html.matchAll(/href="([^"]*)"/g))
          expect((m[1] ?? "").split("(").length, html).toBe((m[1] ?? "").split(")").length);
      }),
      runs(300),
    );
  });

  it("Slack mrkdwn never has a < or > outside a link token", () => {
    fc.assert(
      fc.property(markdown, (md) => {
        const out = toMrkdwn(md);
        expect(slackValid(out), `${md}\n=> ${out}`).toBe(true);
      }),
      runs(300),
    );
  });

  it("mail text keeps every URL of a link whole inside <...>", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(word, url), { minLength: 1, maxLength: 4 }), (links) => {
        const md = links.map(([t, u]) => `[${t}](${u})`).join(" and ");
        const out = toMailText(md);
        for (const [, u] of links) expect(out).toContain(`<${u}>`);
      }),
      runs(100),
    );
  });
});

/** The URLs of the links the parser reads in `md` (GFM autolink literals included), in order. */
function parsedUrls(md: string): string[] {
  const urls: string[] = [];
  const walk = (node: { type: string; url?: string; children?: unknown[] }) => {
    if (node.type === "link" && node.url) urls.push(node.url);
    for (const child of node.children ?? []) walk(child as typeof node);
  };
  walk(fromMarkdown(md, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }));
  return urls;
}

/**
 * The links Discord makes of a message without masked links, by the rule discord.ts writes for it:
 * `<url>` is a link (its brackets hidden), and a bare URL runs to the next blank or `<`, whatever
 * it ends with (how far Discord's autolinker takes it is documented loosely; the greedy reading is
 * the one under which a link can only come out too long, never too short).
 */
function discordUrls(text: string): string[] {
  const urls: { at: number; url: string }[] = [];
  const rest = text.replace(/<(https?:\/\/[^\s<>]+)>/g, (token, url: string, at: number) => {
    urls.push({ at, url });
    return " ".repeat(token.length);
  });
  for (const m of rest.matchAll(/https?:\/\/[^\s<]+/g)) urls.push({ at: m.index, url: m[0] });
  return urls.sort((a, b) => a.at - b.at).map((u) => u.url);
}

/**
 * Bare URLs (some with parentheses of their own) with the punctuation a sentence puts around them,
 * some ending a bold, italic or struck-through span.
 */
const bareUrls = fc
  .array(
    fc.oneof(
      word,
      fc
        .tuple(
          fc.constantFrom("", "(", "see "),
          fc.constantFrom("", "", "**", "*", "_", "~~"),
          url,
          fc.constantFrom("", ".", ",", ")", ").", "),", "!", "?", ":", "...", "'", "_"),
        )
        .map(([before, mark, u, after]) => `${before}${mark}${u}${mark}${after}`),
    ),
    { minLength: 1, maxLength: 5 },
  )
  .map((parts) => parts.join(" "));

describe("bare URLs on Discord", { timeout: propertyTimeout(20_000) }, () => {
  it("every link Discord makes is the parser's URL: punctuation and marks the text put after it stay outside", () => {
    fc.assert(
      fc.property(bareUrls, (md) => {
        const out = toDiscord(md);
        // A target's parentheses are percent-encoded, as a masked link's.
        const expected = parsedUrls(md).map((u) => u.replace(/\(/g, "%28").replace(/\)/g, "%29"));
        expect(discordUrls(out), `${md}\n=> ${out}`).toEqual(expected);
      }),
      runs(200),
    );
  });

  it("in raw HTML's text (shown as typed), every link Discord makes is the URL the parser reads in that text", () => {
    fc.assert(
      fc.property(bareUrls, (text) => {
        // `<div>` opens an HTML block: the line is raw HTML, no link of the parser's.
        const out = toDiscord(`<div>${text}</div>`);
        expect(discordUrls(out), `${text}\n=> ${out}`).toEqual(parsedUrls(text));
      }),
      runs(200),
    );
  });
});

describe("random Markdown cut into Telegram pieces", { timeout: propertyTimeout(20_000) }, () => {
  const visible = (html: string) => {
    const parsed = parseTelegramHtml(html);
    if (!parsed.ok) throw new Error(`${parsed.description}: ${html}`);
    return parsed.text;
  };
  // Cuts drop the blanks they are made at, so the whole is compared without blanks.
  const squash = (s: string) => s.replace(/\s+/g, "");

  it("every piece parses within the limit, and the pieces' visible text is the whole's", () => {
    fc.assert(
      fc.property(markdown, fc.integer({ min: 8, max: 60 }), (md, limit) => {
        const html = toTelegramHtml(md);
        const pieces = splitHtml(html, limit);
        // Telegram counts UTF-16 units, as splitHtml does.
        for (const piece of pieces) expect(visible(piece).length).toBeLessThanOrEqual(limit);
        expect(squash(pieces.map(visible).join(""))).toBe(squash(visible(html)));
      }),
      runs(300),
    );
  });
});
