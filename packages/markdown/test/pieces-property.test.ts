// For random Markdown cut at random limits, on every platform: each piece is valid in the
// platform's format on its own and within the limit, and the pieces together show the text the
// whole shows. Validity is checked by readers written here from each format's documentation, not
// by the renderers.
import { parseTelegramHtml } from "@agentsvc/testkit";
import fc from "fast-check";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { toString as plain } from "mdast-util-to-string";
import { gfm } from "micromark-extension-gfm";
import { describe, expect, it } from "vitest";
import {
  discordPieces,
  htmlToPlain,
  mailPieces,
  plainTextPieces,
  slackPieces,
  telegramPieces,
  toDiscord,
  toMailHtml,
  toMrkdwn,
  toPlainText,
  toSlackMarkdown,
  toTelegramHtml,
  toWhatsApp,
  whatsAppPieces,
} from "../src/index.js";
import { markdown } from "./arbitraries.js";
import { propertyTimeout, runs as runsOf } from "./runs.js";

// Cuts drop the blanks they are made at, marks are repeated around each part and a cut table
// keeps one rule, so texts are compared without blanks, mark and rule characters. A list item's
// number is a mark too (read as CommonMark, the part of an item going on loses its list).
const squash = (s: string) => s.replace(/^\s*\d+\. /gm, "").replace(/[\s*_~`>#|∣+\-\u200b]+/g, "");

/** Every ``` opened is closed (Slack, Discord and WhatsApp open a block at any ```). */
function fencesBalanced(text: string): boolean {
  return (text.match(/```/g) ?? []).length % 2 === 0;
}

/** Slack mrkdwn: every `<` opens a `<url>` or `<url|text>` token, no `>` stands alone but a quote's. */
const slackTokensWhole = (mrkdwn: string) =>
  !/[<>]/.test(mrkdwn.replace(/^(> )+/gm, "").replace(/<[^<>|\s]+(\|[^<>|]*)?>/g, ""));

const slackVisible = (mrkdwn: string) =>
  mrkdwn
    .replace(/<([^<>|\s]+)\|([^<>|]*)>/g, "$2")
    .replace(/<([^<>|\s]+)>/g, "$1")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

/** Discord's markdown read as CommonMark + GFM (what it follows for our output): the text it shows. */
const discordVisible = (text: string) =>
  plain(fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }));

/** Tags of mail HTML open and close in order (void br/hr excepted); no element outside the renderer's set. */
function wellFormed(html: string): boolean {
  const stack: string[] = [];
  for (const m of html.matchAll(/<(\/?)([a-z0-9]+)[^<>]*>/g)) {
    const [, close, name = ""] = m;
    if (
      !/^(p|strong|em|del|code|pre|a|blockquote|ul|ol|li|h[1-6]|table|thead|tbody|tr|th|td|hr|br|sup|div)$/.test(
        name,
      )
    )
      return false;
    if (name === "br" || name === "hr") continue;
    if (!close) stack.push(name);
    else if (stack.pop() !== name) return false;
  }
  return stack.length === 0 && !/<(?![a-z/])/.test(html.replace(/<\/?[a-z0-9]+[^<>]*>/g, ""));
}

const telegramText = (html: string) => {
  const parsed = parseTelegramHtml(html);
  if (!parsed.ok) throw new Error(`${parsed.description}: ${html}`);
  return parsed.text;
};

const limit = fc.integer({ min: 16, max: 120 });
const runs = runsOf(100);

// Each property renders a few thousand pieces: on a loaded machine that takes a while.
describe("random Markdown cut at a platform's limit", { timeout: propertyTimeout(180_000) }, () => {
  it("Telegram: every piece parses, counts at most the limit, and the pieces show the whole's text", () => {
    fc.assert(
      fc.property(markdown, limit, (md, max) => {
        const pieces = telegramPieces(md, max);
        for (const piece of pieces) expect(telegramText(piece).length, piece).toBeLessThanOrEqual(max);
        expect(squash(pieces.map(telegramText).join("\n"))).toBe(squash(telegramText(toTelegramHtml(md))));
      }),
      runs,
    );
  });

  it("Slack: every piece renders as whole mrkdwn tokens and balanced fences in both forms, within the limit", () => {
    fc.assert(
      fc.property(markdown, limit, (md, max) => {
        const pieces = slackPieces(md, max);
        for (const piece of pieces) {
          const mrkdwn = toMrkdwn(piece);
          const text = toSlackMarkdown(piece);
          expect(slackTokensWhole(mrkdwn), mrkdwn).toBe(true);
          expect(fencesBalanced(mrkdwn) && fencesBalanced(text), `${mrkdwn}\n${text}`).toBe(true);
          expect(mrkdwn.length, mrkdwn).toBeLessThanOrEqual(max);
          expect(text.length, text).toBeLessThanOrEqual(max);
        }
        const shown = pieces.map((p) => slackVisible(toMrkdwn(p))).join("\n");
        expect(squash(shown)).toBe(squash(slackVisible(toMrkdwn(md))));
      }),
      runs,
    );
  });

  it("Discord: every piece has balanced fences and no mention, within the limit", () => {
    fc.assert(
      fc.property(markdown, limit, (md, max) => {
        const pieces = discordPieces(md, max);
        for (const piece of pieces) {
          expect(fencesBalanced(piece), piece).toBe(true);
          expect(piece, piece).not.toMatch(/(^|[^\\])(@everyone|@here|<[@#/])/);
          expect(piece.length, piece).toBeLessThanOrEqual(max);
        }
        expect(squash(pieces.map(discordVisible).join("\n"))).toBe(squash(discordVisible(toDiscord(md))));
      }),
      runs,
    );
  });

  it("e-mail: every piece's HTML is well-formed and shows the piece's text", () => {
    fc.assert(
      fc.property(markdown, limit, (md, max) => {
        const pieces = mailPieces(md, max);
        for (const piece of pieces) {
          expect(wellFormed(toMailHtml(piece)), toMailHtml(piece)).toBe(true);
          expect(piece.length, piece).toBeLessThanOrEqual(max);
        }
        const shown = pieces.map((p) => htmlToPlain(toMailHtml(p))).join("\n");
        expect(squash(shown)).toBe(squash(htmlToPlain(toMailHtml(md))));
      }),
      runs,
    );
  });

  it("WhatsApp and SMS: every piece has balanced fences, within the limit, the pieces the whole", () => {
    fc.assert(
      fc.property(markdown, limit, (md, max) => {
        const wa = whatsAppPieces(md, max);
        for (const piece of wa) {
          expect(fencesBalanced(piece), piece).toBe(true);
          expect(piece.length).toBeLessThanOrEqual(max);
        }
        expect(squash(wa.join("\n"))).toBe(squash(toWhatsApp(md)));
        const sms = plainTextPieces(md, max);
        for (const piece of sms) expect(piece.length).toBeLessThanOrEqual(max);
        expect(squash(sms.join("\n"))).toBe(squash(toPlainText(md)));
      }),
      runs,
    );
  });
});
