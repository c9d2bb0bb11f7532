// The part of a resolved webui exposure the page reads. Structural on purpose: config-schema's
// resolved entry fits it, and so does a hand-written object in a test.

export type PageIcon = { kind: "emoji"; value: string } | { kind: "image"; src: string };

export interface PageEntry {
  /** Mount path, e.g. "/chat"; the API lives at `<path>/api`. */
  path: string;
  title?: string;
  subtitle?: string;
  icon?: PageIcon;
  welcome?: string;
  placeholder?: string;
  footer?: string;
  /** Up to 6 prompts offered as buttons in the empty state; a click sends one. */
  starterPrompts?: readonly string[];
  /** Show the Thinking strip (default true). */
  showReasoning?: boolean;
  /** Show tool-call chips (default true). */
  showToolCalls?: boolean;
  /** Light tokens, hex already carrying `#`. A nested `dark` record is accepted too. */
  theme?: Readonly<Record<string, string | Readonly<Record<string, string>>>>;
  /** Dark-mode overrides of the same tokens. */
  themeDark?: Readonly<Record<string, string>>;
  /** True when the entry declares accounts (the sign-in gate is on). */
  signIn?: boolean;
  /** The entry's account list; its presence alone turns sign-in on (contents are never read). */
  users?: readonly unknown[];
  /** The entry's `media` block: files may be attached (kinds and byte cap); absent: none. */
  media?: PageMedia;
}

/** What the page may upload: the kinds (`image`, `audio`, `video`, `document`) and the byte cap. */
export interface PageMedia {
  maxBytes: number;
  types: readonly string[];
}

/** Everything the page needs after defaults are applied. */
export interface ResolvedPage {
  apiBase: string;
  path: string;
  title: string;
  subtitle: string;
  icon: PageIcon | undefined;
  welcome: string;
  placeholder: string;
  footer: string;
  starterPrompts: readonly string[];
  showReasoning: boolean;
  showToolCalls: boolean;
  signIn: boolean;
  /** Uploads on (a media block with at least one kind), else null. */
  media: PageMedia | null;
}

export const DEFAULTS = {
  title: "Chat",
  welcome: "Ask me anything.",
  placeholder: "Type a message…",
} as const;

/** Normalises the mount path: leading slash, no trailing slash ("/" stays "/"). */
export function normalisePath(path: string): string {
  const trimmed = path.trim();
  if (!trimmed.startsWith("/") || /[\s?#\\]/.test(trimmed) || trimmed.split("/").includes("..")) {
    throw new Error(
      `webui entry path: expected an absolute URL path such as "/chat" without spaces, "?", "#" or ".." (got ${JSON.stringify(path)})`,
    );
  }
  const noTrail = trimmed.replace(/\/+$/, "");
  return noTrail === "" ? "/" : noTrail;
}

export function resolveEntry(entry: PageEntry): ResolvedPage {
  const path = normalisePath(entry.path);
  return {
    path,
    apiBase: `${path === "/" ? "" : path}/api`,
    title: entry.title ?? DEFAULTS.title,
    subtitle: entry.subtitle ?? "",
    icon: entry.icon,
    welcome: entry.welcome ?? DEFAULTS.welcome,
    placeholder: entry.placeholder ?? DEFAULTS.placeholder,
    footer: entry.footer ?? "",
    starterPrompts: entry.starterPrompts ?? [],
    showReasoning: entry.showReasoning ?? true,
    showToolCalls: entry.showToolCalls ?? true,
    signIn: entry.signIn ?? entry.users !== undefined,
    media:
      entry.media && entry.media.types.length > 0
        ? { maxBytes: entry.media.maxBytes, types: [...entry.media.types] }
        : null,
  };
}
