import { THEME_TOKENS } from "@agentsvc/config-schema";
import { readableOn } from "./contrast.js";

// Theme tokens -> CSS custom properties. Light tokens go on :root; dark ones apply when the page
// is explicitly dark ([data-theme=dark]) or follows a dark system preference with no choice made.

// One list of tokens for the whole product: config-schema validates them, the page renders them.
export { THEME_TOKENS };

/**
 * Brand colours the built-in dark palette would otherwise replace: a light value for one of these
 * carries into dark mode unless `theme.dark` sets it.
 */
const BRAND_TOKENS = new Set(["accent", "accentFg", "bubbleUser", "bubbleUserFg"]);

const KNOWN = new Set<string>(THEME_TOKENS);
// A value must not be able to end its declaration or the style block.
const UNSAFE_VALUE = /[<>{};\\\n\r]/;

export const DARK_SELECTOR = ':root[data-theme="dark"]';
export const SYSTEM_DARK_SELECTOR = ':root:not([data-theme="light"])';

/** accentFg -> --accent-fg */
export function tokenVar(token: string): string {
  return `--${token.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

function declarations(tokens: Record<string, string>, label: string): string {
  const out: string[] = [];
  for (const [token, value] of Object.entries(tokens)) {
    if (!KNOWN.has(token)) {
      throw new Error(
        `webui entry ${label}.${token}: unknown theme token (known tokens: ${THEME_TOKENS.join(", ")})`,
      );
    }
    if (typeof value !== "string" || value.trim() === "" || UNSAFE_VALUE.test(value)) {
      throw new Error(
        `webui entry ${label}.${token}: expected a CSS value without < > { } ; \\ or a line break (got ${JSON.stringify(value)})`,
      );
    }
    out.push(`${tokenVar(token)}:${value.trim()}`);
  }
  return out.join(";");
}

/** Splits `theme` into light tokens and dark overrides (`themeDark` and a nested `theme.dark`). */
export function splitTokens(
  theme: Readonly<Record<string, string | Readonly<Record<string, string>>>> | undefined,
  themeDark: Readonly<Record<string, string>> | undefined,
): { light: Record<string, string>; dark: Record<string, string> } {
  const light: Record<string, string> = {};
  const dark: Record<string, string> = {};
  for (const [k, v] of Object.entries(theme ?? {})) {
    if (k === "dark" && typeof v === "object" && v !== null) Object.assign(dark, v);
    else light[k] = v as string;
  }
  Object.assign(dark, themeDark ?? {});
  return { light, dark };
}

/**
 * An accent set without its text colour gets a readable one (white or near-black, by WCAG
 * contrast), so a light accent in dark mode does not carry white text at 3:1.
 */
function withReadableAccentFg(tokens: Record<string, string>, explicitFg: boolean): Record<string, string> {
  if (explicitFg || tokens.accent === undefined) return tokens;
  const fg = readableOn(tokens.accent);
  return fg ? { ...tokens, accentFg: fg } : tokens;
}

/** The CSS for the entry's tokens (empty when none are set). Goes after the defaults. */
export function themeTokensCss(lightGiven: Record<string, string>, dark: Record<string, string>): string {
  const light = withReadableAccentFg(lightGiven, lightGiven.accentFg !== undefined);
  const darkAll: Record<string, string> = {};
  for (const [k, v] of Object.entries(light)) if (BRAND_TOKENS.has(k)) darkAll[k] = v;
  Object.assign(
    darkAll,
    withReadableAccentFg(dark, dark.accentFg !== undefined || dark.accent === undefined),
  );
  const lightDecl = declarations(light, "theme");
  const darkDecl = declarations(darkAll, "theme.dark");
  let css = "";
  if (lightDecl) css += `:root{${lightDecl}}`;
  if (darkDecl) {
    css += `${DARK_SELECTOR}{${darkDecl}}`;
    css += `@media (prefers-color-scheme:dark){${SYSTEM_DARK_SELECTOR}{${darkDecl}}}`;
  }
  return css;
}

/** The theme file is inlined into the <style> block: it must not be able to close it. */
export function checkThemeCss(themeCss: string): void {
  const m = /<\/style/i.exec(themeCss);
  if (m) {
    const line = themeCss.slice(0, m.index).split("\n").length;
    throw new Error(
      `webui theme file: line ${line}: a literal "</style" would end the page's style block; remove it`,
    );
  }
}
