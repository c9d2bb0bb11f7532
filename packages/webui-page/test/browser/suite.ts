// Shared setup for page tests in Chromium against the fake API: one browser per file, pages and
// fakes closed after each test, and every page checked for CSP violations, dialogs and errors.
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
// @ts-expect-error - plain ESM build script without type declarations
import { bundleClient } from "../../scripts/bundle.mjs";
import type { PageEntry } from "../../src/entry.js";
import type { ClientAssets } from "../../src/render.js";
import { type FakeApi, type FakeOptions, startFakeApi } from "../fake-api/server.js";
import { launchBrowser, openPage, type Watched } from "./harness.js";

export interface PageSuite {
  fake(opts?: Partial<FakeOptions>): Promise<FakeApi>;
  open(f: FakeApi, opts?: Parameters<typeof openPage>[2]): Promise<Watched>;
  send(w: Watched, text: string): Promise<void>;
}

export function pageSuite(entry: PageEntry): PageSuite {
  let browser: Browser;
  let assets: ClientAssets;
  const fakes: FakeApi[] = [];
  const pages: Watched[] = [];
  beforeAll(async () => {
    assets = (await bundleClient()) as ClientAssets;
    browser = await launchBrowser();
  });
  afterEach(async () => {
    for (const p of pages.splice(0)) {
      expect(p.cspErrors, "CSP violations").toEqual([]);
      expect(p.dialogs, "JS dialogs").toEqual([]);
      expect(p.pageErrors, "uncaught page errors").toEqual([]);
      await p.context.close();
    }
    for (const f of fakes.splice(0)) await f.close();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    async fake(opts = {}) {
      const f = await startFakeApi({ entry, assets, ...opts });
      fakes.push(f);
      return f;
    },
    async open(f, opts = {}) {
      const w = await openPage(browser, f.pageUrl, opts);
      pages.push(w);
      return w;
    },
    async send(w, text) {
      await w.page.locator("#input").fill(text);
      await w.page.locator("#input").press("Enter");
    },
  };
}
