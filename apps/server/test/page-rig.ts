/// <reference lib="dom" />
// One chat-page test file's rig: the hello example's server with a media block on its webui entry
// (SQLite in a temp dir, the demo model) and one Chromium, both started once for the file. Each
// test opens its own browser context; after the test it must have seen no CSP violation, page
// error or dialog, and is closed.
import type { MediaConfig } from "@agentsvc/config-schema";
import pino from "pino";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { launchBrowser, openPage, type Watched } from "../../../packages/webui-page/test/browser/harness.js";
import { type RunningServer, startServer } from "../src/index.js";
import { helloProject } from "./hello-server.js";

export type Page = Watched["page"];
type Browser = Awaited<ReturnType<typeof launchBrowser>>;

export interface PageRigOptions {
  /** The webui entry's media block. */
  media: MediaConfig;
  /** The server's environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
}

export interface PageRig {
  readonly server: RunningServer;
  readonly browser: Browser;
  /** Opens `url` (default: the rig server's chat page) in a new context, once the model's name shows. */
  open(url?: string): Promise<Page>;
  /** Checks and closes the page opened last now (a test that stops a server of its own first). */
  close(): Promise<void>;
}

/**
 * Registers the file's hooks. `options` is read in `beforeAll`, after hooks the file registered
 * before this call (a fake the media block points at).
 */
export function usePageRig(options: () => PageRigOptions): PageRig {
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  let watched: Watched | undefined;

  const close = async () => {
    const w = watched;
    if (!w) return;
    watched = undefined;
    try {
      expect(w.cspErrors).toEqual([]);
      expect(w.pageErrors).toEqual([]);
      expect(w.dialogs).toEqual([]);
    } finally {
      await w.context.close();
    }
  };

  beforeAll(async () => {
    const { media, env } = options();
    const project = await helloProject();
    const withMedia = {
      ...project,
      exposures: project.exposures.map((e) => (e.exposes === "webui" ? { ...e, media } : e)),
    };
    // Side by side; each kept as it starts, so afterAll stops whichever did when the other failed.
    const started = await Promise.allSettled([
      startServer(withMedia, { port: 0, logger: pino({ level: "silent" }), ...(env ? { env } : {}) }).then(
        (s) => {
          server = s;
        },
      ),
      launchBrowser().then((b) => {
        browser = b;
      }),
    ]);
    for (const s of started) if (s.status === "rejected") throw s.reason;
  });
  afterEach(close);
  afterAll(async () => {
    await browser?.close();
    await server?.shutdown();
  });

  return {
    get server() {
      if (!server) throw new Error("the page rig's server is not started (use it inside a test)");
      return server;
    },
    get browser() {
      if (!browser) throw new Error("the page rig's browser is not started (use it inside a test)");
      return browser;
    },
    async open(url) {
      await close();
      const w = await openPage(this.browser, url ?? `${this.server.url}/chat/index.html`);
      watched = w;
      await expect.poll(() => w.page.locator("#model").textContent()).not.toBe("");
      return w.page;
    },
    close,
  };
}
