/// <reference lib="dom" />
// WCAG contrast of every default text/background token pair, light and dark, read from the page's
// computed colours in Chromium (so tokens defined through other tokens count as rendered).
import { describe, expect, it } from "vitest";
import { contrastRatio } from "../src/contrast.js";
import type { PageEntry } from "../src/entry.js";
import { pageSuite } from "./browser/suite.js";
import type { Watched } from "./browser/harness.js";

const ENTRY: PageEntry = { path: "/chat", title: "Contrast" };
const suite = pageSuite(ENTRY);

/** Text token on background token: every place the page draws one on the other. */
const TEXT_PAIRS: [string, string][] = [
  ["--fg", "--bg"],
  ["--fg", "--surface"],
  ["--fg", "--input-bg"],
  ["--muted", "--bg"],
  ["--muted", "--surface"],
  ["--muted", "--bubble-assistant"],
  ["--accent-fg", "--accent"],
  ["--bubble-user-fg", "--bubble-user"],
  ["--bubble-assistant-fg", "--bubble-assistant"],
  ["--reasoning-fg", "--reasoning-bg"],
  ["--tool-fg", "--tool-bg"],
  ["--bubble-error", "--bg"],
  ["--bubble-error", "--bubble-assistant"],
  ["--accent", "--bubble-assistant"],
  ["--accent", "--bg"],
];

/** Each token's colour as the page renders it, as [r, g, b]. */
async function tokenColours(w: Watched): Promise<Record<string, [number, number, number]>> {
  const names = [...new Set(TEXT_PAIRS.flat())];
  const rgb = await w.page.evaluate((tokens) => {
    const probe = document.createElement("span");
    document.body.append(probe);
    const out: Record<string, string> = {};
    for (const t of tokens) {
      probe.style.color = `var(${t})`;
      out[t] = getComputedStyle(probe).color;
    }
    probe.remove();
    return out;
  }, names);
  return Object.fromEntries(
    Object.entries(rgb).map(([t, css]) => {
      const [r = 0, g = 0, b = 0] = (css.match(/\d+(\.\d+)?/g) ?? []).map(Number);
      return [t, [r, g, b] as [number, number, number]];
    }),
  );
}

async function ratios(w: Watched): Promise<string[]> {
  const colours = await tokenColours(w);
  return TEXT_PAIRS.map(([fg, bg]) => {
    const ratio = contrastRatio(colours[fg] ?? [0, 0, 0], colours[bg] ?? [0, 0, 0]);
    return `${fg} on ${bg}: ${ratio >= 4.5 ? "ok" : ratio.toFixed(2)}`;
  });
}

const allOk = TEXT_PAIRS.map(([fg, bg]) => `${fg} on ${bg}: ok`);

describe("contrast of the default theme tokens (WCAG AA, 4.5:1)", () => {
  for (const colorScheme of ["light", "dark"] as const) {
    it(`every text/background pair passes in ${colorScheme}`, async () => {
      const w = await suite.open(await suite.fake(), { colorScheme });
      await expect.poll(() => w.page.locator("#model").textContent()).not.toBe("");
      expect(await ratios(w)).toEqual(allOk);
    });

    it(`an entry that sets only accent (light and dark) still gets readable buttons and bubbles in ${colorScheme}`, async () => {
      const entry = { ...ENTRY, theme: { accent: "#4f46e5", dark: { accent: "#818cf8" } } };
      const w = await suite.open(await suite.fake({ entry }), { colorScheme });
      await expect.poll(() => w.page.locator("#model").textContent()).not.toBe("");
      const colours = await tokenColours(w);
      // The user's bubble follows the entry's accent.
      expect(colours["--bubble-user"]).toEqual(colours["--accent"]);
      expect(colours["--accent"]).toEqual(colorScheme === "light" ? [79, 70, 229] : [129, 140, 248]);
      expect(await ratios(w)).toEqual(allOk);
    });
  }
});
