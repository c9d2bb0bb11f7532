import * as v from "valibot";
import { mediaKeys } from "./media.js";
import { bool, envVarName, isHttpUrl, nonEmptyString, strict } from "./common.js";
import { exposurePath } from "./exposure.js";
import { themeSchema } from "./theme.js";

export const DEFAULT_DATASOURCE = "agentsvc";
export const DEFAULT_DATABASE_PATH = "./data/chat.db";
export const DEFAULT_THEME_FILE = "resources/webui/theme.css";

/** Absolute on POSIX or Windows (`/x`, `\x`, `C:\x`, `C:/x`). */
function isAbsolutePath(p: string): boolean {
  return /^[/\\]/.test(p) || /^[A-Za-z]:/.test(p);
}

/** True when a whole segment is `..` (so `..hidden` and `a..b` are fine). */
function hasParentSegment(p: string): boolean {
  return p.split(/[/\\]/).some((s) => s === "..");
}

const relativeProjectPath = (what: string) =>
  v.pipe(
    v.string(`must be a string (${what})`),
    v.minLength(1, `must not be empty (${what})`),
    v.check((p) => !isAbsolutePath(p), "must be relative to the app root"),
    v.check((p) => !hasParentSegment(p), 'must not contain a ".." segment (it would leave the app root)'),
  );

const databaseSchema = strict(
  {
    datasource: v.optional(
      v.string((issue) =>
        issue.input !== null && typeof issue.input === "object"
          ? "must be the name of a datasource declared in agentsvc.config (an inline datasource structure is not allowed)"
          : "must be a string: the name of a declared datasource",
      ),
      DEFAULT_DATASOURCE,
    ),
    path: v.optional(relativeProjectPath("store file path"), DEFAULT_DATABASE_PATH),
  },
  "database",
);

export const PASSWORD_HASH = /^pbkdf2\$[1-9][0-9]*\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/;

const LITERAL_PASSWORD =
  "a literal password is not allowed in config; use passwordEnvVar (the name of an environment variable) or passwordHash (from `agentsvc hash-password`)";

const accountSchema = v.pipe(
  strict(
    {
      username: v.pipe(
        nonEmptyString("sign-in name"),
        v.regex(/^\S+$/, "must not contain whitespace (sign-in name)"),
      ),
      displayName: v.optional(nonEmptyString("display name")),
      passwordEnvVar: v.optional(envVarName),
      passwordHash: v.optional(
        v.pipe(
          v.string("must be a string of the form pbkdf2$<iterations>$<salt>$<digest>"),
          v.regex(
            PASSWORD_HASH,
            "must have the form pbkdf2$<iterations>$<salt>$<digest> (salt and digest base64url)",
          ),
        ),
      ),
    },
    "an account",
    { password: LITERAL_PASSWORD },
  ),
  v.check(
    (a) => (a.passwordEnvVar === undefined) !== (a.passwordHash === undefined),
    (issue) =>
      issue.input.passwordEnvVar === undefined
        ? "needs passwordEnvVar or passwordHash"
        : "must carry only one of passwordEnvVar and passwordHash",
  ),
);

export type IconValue = { kind: "emoji"; value: string } | { kind: "image"; src: string };

const IMAGE_EXT = /\.(svg|png|jpe?g|gif|webp|ico|avif)$/i;
// Created on first use: building a grapheme segmenter loads ICU break data (~20 ms and ~2.5 MiB
// at start-up), and most icons never need it.
let segmenter: Intl.Segmenter | undefined;
// One pictographic code point, optionally followed by VS16 or a skin-tone modifier (both
// Grapheme_Cluster_Break=Extend): always a single grapheme, so the segmenter is not needed.
const SIMPLE_EMOJI = /^\p{Extended_Pictographic}[\u{FE0F}\u{1F3FB}-\u{1F3FF}]?$/u;

function isEmoji(s: string): boolean {
  if (SIMPLE_EMOJI.test(s)) return true;
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  let graphemes = 0;
  for (const _ of segmenter.segment(s)) if (++graphemes > 1) return false;
  if (graphemes !== 1) return false;
  return /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20E3/u.test(s);
}

function isImageRef(s: string): boolean {
  if (/\s/.test(s)) return false;
  if (s.startsWith("data:image/")) return true;
  if (/^https?:/i.test(s)) return isHttpUrl(s);
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s) || s.startsWith("//")) return false; // other schemes, protocol-relative
  return s.startsWith("/") || s.startsWith("./") || IMAGE_EXT.test(s);
}

const iconSchema = v.pipe(
  v.string("must be a string: an emoji or an image reference"),
  v.trim(),
  v.check(
    (s) => isEmoji(s) || isImageRef(s),
    "must be one emoji or an image reference (a path such as /logo.svg, an http(s) URL, or a data:image/ URI)",
  ),
  v.transform((s): IconValue => (isEmoji(s) ? { kind: "emoji", value: s } : { kind: "image", src: s })),
);

const text = (what: string) => v.optional(v.string(`must be a string (${what})`));

export const webuiExposureSchema = strict(
  {
    exposes: v.literal("webui", "must be webui"),
    path: exposurePath,
    apiKeyEnvVar: v.optional(envVarName),
    users: v.optional(v.array(accountSchema, "must be a list of accounts")),
    database: v.optional(databaseSchema, {}),
    title: text("browser title and header heading"),
    subtitle: text("line under the heading"),
    icon: v.optional(iconSchema),
    welcome: text("empty-state message"),
    placeholder: text("composer placeholder"),
    footer: text("note under the composer"),
    starterPrompts: v.optional(
      v.pipe(
        v.array(
          v.pipe(
            nonEmptyString("a starter prompt"),
            v.maxLength(200, "must be at most 200 characters (a starter prompt)"),
          ),
          "must be a list of prompts",
        ),
        v.maxLength(6, "must list at most 6 prompts"),
      ),
    ),
    showReasoning: v.optional(bool("show the Thinking strip"), true),
    showToolCalls: v.optional(bool("show tool-call chips"), true),
    theme: v.optional(themeSchema),
    themeFile: v.optional(relativeProjectPath("CSS override path relative to the project root")),
    ...mediaKeys,
  },
  "a webui exposure",
);
