// Assembles the single HTML file: skeleton markup with escaped branding, one <style> (defaults,
// then entry tokens, then the theme file), a JSON config block, the client script and, in <head>,
// a small script that starts the first API reads while the rest of the page is parsed.
import { type PageEntry, type ResolvedPage, resolveEntry } from "./entry.js";
import { escapeHtml, jsonForScript } from "./escape.js";
import { classifyImageSrc, DEFAULT_FAVICON, faviconHref } from "./icon.js";
import { checkThemeCss, splitTokens, themeTokensCss } from "./theme.js";

export interface ClientAssets {
  /** The bundled client script (IIFE). */
  js: string;
  /** The page's default stylesheet. */
  css: string;
  /** The small script in <head> that starts the first reads (IIFE); optional. */
  early?: string;
}

/** What the client script reads from the JSON block. */
export interface ClientConfig {
  apiBase: string;
  path: string;
  title: string;
  welcome: string;
  showReasoning: boolean;
  showToolCalls: boolean;
  signIn: boolean;
  icon: ResolvedPage["icon"] | null;
  /** With an emoji icon: what the page shows instead when no installed font draws the emoji. */
  fallbackIcon?: string;
  /** Uploads: the kinds and byte cap of the entry's media block; null when files are off. */
  media: ResolvedPage["media"];
}

export const CONFIG_ELEMENT_ID = "agentsvc-config";
/**
 * An empty element after the main script: the page renders nothing before it is parsed (a
 * render-blocking `<link rel="expect">` in <head>), so the first frame comes after the main script.
 */
export const PARSED_ELEMENT_ID = "agentsvc-parsed";

// Inline SVG (no emoji font needed); attributes only, no style attribute (CSP).
const KEY_ICON =
  '<svg class="icon" viewBox="0 0 24 24" width="1em" height="1em" fill="none" stroke="currentColor" stroke-width="2" ' +
  'stroke-linecap="round" stroke-linejoin="round" aria-hidden="true"><circle cx="8" cy="15" r="4"/>' +
  '<path d="M11 12l9-9M17 6l3 3M15 8l2 2"/></svg>';

const CLIP_ICON =
  '<svg class="icon" viewBox="0 0 24 24" width="1em" height="1em" fill="none" stroke="currentColor" stroke-width="2" ' +
  'stroke-linecap="round" stroke-linejoin="round" aria-hidden="true">' +
  '<path d="M21 11l-8.5 8.5a5 5 0 0 1-7-7L14 4a3.5 3.5 0 0 1 5 5l-8.5 8.5a2 2 0 0 1-3-3L15 7"/></svg>';

function checkAssets(assets: ClientAssets): void {
  // The bundle goes inside <script>: these sequences would end it or change how it is parsed.
  if (/<\/script|<!--/i.test(assets.js) || /<\/script|<!--/i.test(assets.early ?? ""))
    throw new Error("webui-page client bundle contains </script or <!--");
  if (/<\/style/i.test(assets.css)) throw new Error("webui-page stylesheet contains </style");
}

function header(page: ResolvedPage): string {
  let icon = "";
  if (page.icon?.kind === "emoji") {
    icon = `<span class="brand-icon" aria-hidden="true">${escapeHtml(page.icon.value)}</span>`;
  } else if (page.icon?.kind === "image") {
    classifyImageSrc(page.icon.src);
    icon = `<img class="brand-icon" src="${escapeHtml(page.icon.src.trim())}" alt="">`;
  }
  const subtitle = page.subtitle ? `<p class="subtitle">${escapeHtml(page.subtitle)}</p>` : "";
  return (
    `<header class="header">` +
    `<button type="button" id="open-sidebar" class="icon-btn only-narrow" aria-label="Open conversations" aria-controls="sidebar" aria-expanded="false">☰</button>` +
    icon +
    `<div class="titles"><h1>${escapeHtml(page.title)}</h1>${subtitle}</div>` +
    `<span id="model" class="model"></span>` +
    `<span id="user" class="user" hidden></span>` +
    `<button type="button" id="theme-toggle" class="icon-btn" aria-label="Theme: follow system">◐</button>` +
    `<button type="button" id="key-btn" class="icon-btn" aria-label="API key" hidden>${KEY_ICON}</button>` +
    `<button type="button" id="sign-out" class="btn" hidden>Sign out</button>` +
    `</header>`
  );
}

function sidebar(): string {
  return (
    `<aside class="sidebar" id="sidebar" aria-label="Conversations">` +
    `<div class="sidebar-head"><button type="button" id="new-conv" class="btn primary">New</button>` +
    `<button type="button" id="close-sidebar" class="icon-btn only-narrow" aria-label="Close conversations">✕</button></div>` +
    `<ul id="conv-list" class="conv-list"></ul></aside>` +
    `<div id="backdrop" class="backdrop" hidden></div>`
  );
}

/** The empty state: the icon, the welcome text and the entry's starter prompts (as buttons). */
function welcome(page: ResolvedPage): string {
  const icon =
    page.icon?.kind === "emoji"
      ? `<div class="welcome-icon" aria-hidden="true">${escapeHtml(page.icon.value)}</div>`
      : "";
  const starters = page.starterPrompts.length
    ? `<div class="starters" role="group" aria-label="Try one of these">${page.starterPrompts
        .map((p) => `<button type="button" class="starter">${escapeHtml(p)}</button>`)
        .join("")}</div>`
    : "";
  return (
    `<div id="welcome" class="welcome">${icon}<p class="welcome-text">${escapeHtml(page.welcome)}</p>` +
    `${starters}</div>`
  );
}

/** Said once, on the first visit of an entry without accounts (the client shows it). */
const SHARED_NOTICE =
  `<div id="shared-notice" class="notice" role="note" hidden><p>This chat has no accounts: everyone who ` +
  `opens this page sees and shares the same conversations.</p>` +
  `<button type="button" id="shared-notice-ok" class="btn">Got it</button></div>`;

function composer(page: ResolvedPage): string {
  const footer = page.footer ? `<p class="footer">${escapeHtml(page.footer)}</p>` : "";
  return (
    SHARED_NOTICE +
    `<form id="composer" class="composer">` +
    (page.media ? `<div id="file-tray" class="file-tray" hidden></div>` : "") +
    `<textarea id="input" rows="1" aria-label="Message" placeholder="${escapeHtml(page.placeholder)}"></textarea>` +
    // Clear and Compact wait in a menu, away from Send; the status line takes the row's free space.
    `<div class="actions">` +
    (page.media
      ? `<button type="button" id="attach-btn" class="icon-btn" aria-label="Attach files">${CLIP_ICON}</button>` +
        `<input type="file" id="file-input" multiple hidden tabindex="-1">`
      : "") +
    `<div class="menu">` +
    `<button type="button" id="menu-btn" class="icon-btn" aria-label="Conversation actions" aria-haspopup="menu" aria-expanded="false" aria-controls="menu-list">⋯</button>` +
    `<div id="menu-list" class="menu-list" role="menu" aria-label="Conversation actions" tabindex="-1" hidden>` +
    `<button type="button" id="clear-btn" class="menu-item" role="menuitem">Clear conversation</button>` +
    `<button type="button" id="compact-btn" class="menu-item" role="menuitem" hidden>Compact conversation</button>` +
    `</div></div>` +
    `<div id="status" class="status" role="status"></div>` +
    `<button type="button" id="stop-btn" class="btn danger" hidden>Stop</button>` +
    `<button type="submit" id="send-btn" class="btn primary">Send</button>` +
    `</div></form>` +
    footer
  );
}

function dialogs(): string {
  return (
    `<dialog id="key-dialog" class="dialog" aria-labelledby="key-title"><form id="key-form">` +
    `<h2 id="key-title">API key</h2><p id="key-reason" class="muted"></p>` +
    `<label>Key <input id="key-input" type="password" autocomplete="off" spellcheck="false"></label>` +
    `<div class="dialog-actions"><button type="button" id="key-forget" class="btn">Forget key</button>` +
    `<button type="button" id="key-cancel" class="btn">Cancel</button>` +
    `<button type="submit" class="btn primary">Save</button></div></form></dialog>` +
    `<dialog id="signin-dialog" class="dialog" aria-labelledby="signin-title"><form id="signin-form">` +
    `<h2 id="signin-title">Sign in</h2><p id="signin-error" class="error-text" role="alert"></p>` +
    `<label>Username <input id="signin-user" name="username" autocomplete="username" required></label>` +
    `<label>Password <input id="signin-pass" name="password" type="password" autocomplete="current-password" required></label>` +
    `<div class="dialog-actions"><button type="submit" class="btn primary">Sign in</button></div></form></dialog>` +
    `<dialog id="lightbox" class="lightbox" aria-label="Picture"><img id="lightbox-img" alt="">` +
    `<button type="button" id="lightbox-close" class="icon-btn" aria-label="Close picture">✕</button></dialog>`
  );
}

export function assemblePage(entry: PageEntry, themeCss: string, assets: ClientAssets): string {
  const page = resolveEntry(entry);
  checkThemeCss(themeCss);
  checkAssets(assets);
  const { light, dark } = splitTokens(entry.theme, entry.themeDark);
  const tokensCss = themeTokensCss(light, dark);
  const favicon = faviconHref(page.icon);
  const config: ClientConfig = {
    apiBase: page.apiBase,
    path: page.path,
    title: page.title,
    welcome: page.welcome,
    showReasoning: page.showReasoning,
    showToolCalls: page.showToolCalls,
    signIn: page.signIn,
    media: page.media,
    icon: page.icon ?? null,
    ...(page.icon?.kind === "emoji" ? { fallbackIcon: DEFAULT_FAVICON } : {}),
  };
  const style = `${assets.css}\n${tokensCss}\n${themeCss}`;
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1, interactive-widget=resizes-content">` +
    `<meta name="referrer" content="no-referrer">` +
    `<title>${escapeHtml(page.title)}</title>` +
    (favicon ? `<link rel="icon" href="${escapeHtml(favicon)}">` : "") +
    // Rendering waits for the main script: a frame of the empty page before it (the parser
    // yields there) costs a full style, layout and paint that the conversation, usually read by
    // then, replaces at once; the first frame after it shows the conversation itself.
    `<link rel="expect" href="#${PARSED_ELEMENT_ID}" blocking="render">` +
    (assets.early
      ? `<script data-api-base="${escapeHtml(page.apiBase)}" data-storage-prefix="${escapeHtml(`agentsvc:${page.path}:`)}">${assets.early}</script>`
      : "") +
    `<style>${style}</style></head><body>` +
    `<div class="app" id="app">${sidebar()}<main class="main">${header(page)}` +
    `<div id="transcript" class="transcript" role="log" aria-live="off" aria-label="Conversation" tabindex="0">` +
    `<div id="messages" class="messages">${welcome(page)}</div></div>` +
    `${composer(page)}</main></div>${dialogs()}` +
    `<script type="application/json" id="${CONFIG_ELEMENT_ID}">${jsonForScript(config)}</script>` +
    `<script>${assets.js}</script><template id="${PARSED_ELEMENT_ID}"></template></body></html>\n`
  );
}
