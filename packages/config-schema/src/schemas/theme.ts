import * as v from "valibot";

export const COLOR_TOKENS = [
  "accent",
  "accentFg",
  "bg",
  "fg",
  "muted",
  "border",
  "surface",
  "inputBg",
  "bubbleUser",
  "bubbleUserFg",
  "bubbleAssistant",
  "bubbleAssistantFg",
  "bubbleError",
  "reasoningFg",
  "reasoningBg",
  "toolFg",
  "toolBg",
] as const;
export const SIZE_TOKENS = ["radius", "radiusSm", "font", "fontMono", "fontSize", "maxWidth"] as const;
export const THEME_TOKENS = [...COLOR_TOKENS, ...SIZE_TOKENS] as const;
export type ThemeToken = (typeof THEME_TOKENS)[number];

const BARE_HEX = /^(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;
const HASH_HEX = /^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;
const CSS_FUNCTION = /^[a-zA-Z-]+\([^()]*(?:\([^()]*\)[^()]*)*\)$/;
const NAMED = /^[a-zA-Z]+$/;

// Values are written into a <style> block: these characters could end the declaration or the block.
const UNSAFE = /[<>{};\\\n\r]/;

function tokenString(token: string) {
  return v.pipe(
    v.string((issue) =>
      issue.input === null
        ? `must be a string; in YAML an unquoted # starts a comment, so write hex colours bare (${token}: 0a84ff)`
        : typeof issue.input === "number"
          ? `must be a string (write ${token}: "112233" or "8px", not a number)`
          : "must be a string (a CSS value)",
    ),
    v.trim(),
    v.minLength(1, "must not be empty"),
    v.check((s) => !UNSAFE.test(s), "must not contain < > { } ; \\ or a line break"),
  );
}

function colorToken(token: string) {
  return v.pipe(
    tokenString(token),
    v.check(
      (s) => BARE_HEX.test(s) || HASH_HEX.test(s) || CSS_FUNCTION.test(s) || NAMED.test(s),
      "must be a colour: bare hex (0a84ff), rgb(...), hsl(...) or a named colour",
    ),
    // The spec writes hex bare; the hash is added here so the page gets valid CSS.
    v.transform((s) => (BARE_HEX.test(s) ? `#${s}` : s)),
  );
}

function tokenEntries() {
  const entries: Record<string, v.GenericSchema<unknown, string>> = {};
  for (const t of COLOR_TOKENS) entries[t] = v.optional(colorToken(t)) as v.GenericSchema<unknown, string>;
  for (const t of SIZE_TOKENS) entries[t] = v.optional(tokenString(t)) as v.GenericSchema<unknown, string>;
  return entries;
}

const unknownToken = (label: string) =>
  `unknown theme token in ${label} (known tokens: ${THEME_TOKENS.join(", ")})`;

function tokenStruct(label: string, withDark: boolean) {
  const entries: v.ObjectEntries = { ...tokenEntries() };
  if (withDark) entries.dark = v.optional(tokenStruct("theme.dark", false));
  // Unknown keys of a theme are unknown tokens, which the spec makes a build failure.
  return v.strictObject(entries, (issue) =>
    issue.expected === "never" ? unknownToken(label) : `must be a mapping of theme tokens (${label})`,
  );
}

export const themeSchema = tokenStruct("theme", true);

/** Splits the validated theme into light tokens and dark overrides, dropping unset tokens. */
export function splitTheme(theme: Record<string, unknown> | undefined): {
  theme: Record<string, string>;
  themeDark: Record<string, string>;
} {
  const light: Record<string, string> = {};
  const dark: Record<string, string> = {};
  for (const [k, val] of Object.entries(theme ?? {})) {
    if (k === "dark" && val && typeof val === "object") {
      for (const [dk, dv] of Object.entries(val)) if (typeof dv === "string") dark[dk] = dv;
    } else if (typeof val === "string") light[k] = val;
  }
  return { theme: light, themeDark: dark };
}
