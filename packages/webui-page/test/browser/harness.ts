// Chromium via playwright-core (Debian's chromium-headless-shell, else its chromium), one watched
// page per test: dialogs, CSP violations and uncaught errors are collected so every test can assert
// there were none.
import { existsSync } from "node:fs";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

// Debian's chromium-headless-shell where installed: Chromium's headless build (Playwright's own
// default for headless runs), without the full browser's UI side. A context and its first page cost
// a third of the CPU (20: 7.7-9.0 -> 2.9 CPU-s), this package's two Chromium files 41.5, 43.0 ->
// 17.8, 17.2 CPU-s (alternated, load 48-56, #45.6). CHROMIUM_PATH names another.
const HEADLESS_SHELL = "/usr/bin/chromium-headless-shell";
export const CHROMIUM =
  process.env.CHROMIUM_PATH ?? (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : "/usr/bin/chromium");

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

export interface Watched {
  context: BrowserContext;
  page: Page;
  dialogs: string[];
  cspErrors: string[];
  pageErrors: string[];
}

export async function openPage(
  browser: Browser,
  url: string,
  opts: {
    width?: number;
    height?: number;
    colorScheme?: "light" | "dark";
    reducedMotion?: "reduce" | "no-preference";
  } = {},
): Promise<Watched> {
  const context = await browser.newContext({
    viewport: { width: opts.width ?? 1100, height: opts.height ?? 760 },
    colorScheme: opts.colorScheme ?? "light",
    reducedMotion: opts.reducedMotion ?? "reduce",
  });
  const page = await context.newPage();
  page.setDefaultTimeout(8000);
  const watched: Watched = { context, page, dialogs: [], cspErrors: [], pageErrors: [] };
  page.on("dialog", (d) => {
    watched.dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  page.on("console", (m) => {
    if (/Content Security Policy|Refused to (load|apply|execute|connect)/i.test(m.text()))
      watched.cspErrors.push(m.text());
  });
  page.on("pageerror", (e) => watched.pageErrors.push(e.message));
  await page.goto(url);
  return watched;
}
