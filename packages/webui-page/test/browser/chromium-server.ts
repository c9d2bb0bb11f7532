// Global setup of the projects whose tests open pages: one Chromium for the project's run, which
// every test file connects to (harness.ts launchBrowser), instead of a Chromium launched and closed
// by each file (2-4 s of each file's time). Contexts stay per test, so no state is shared.
import { createRequire } from "node:module";
import type { TestProject } from "vitest/node";
import { CHROMIUM_OPTIONS } from "./chromium.js";

export default async function chromiumServer({ provide }: TestProject): Promise<() => Promise<void>> {
  // Resolved from this package, which owns the browser dependency: the server's project runs this
  // setup too and has no playwright-core of its own.
  const { chromium } = (await import(
    createRequire(import.meta.url).resolve("playwright-core")
  )) as typeof import("playwright-core");
  const server = await chromium.launchServer(CHROMIUM_OPTIONS);
  provide("chromiumEndpoint", server.wsEndpoint());
  return () => server.close();
}
