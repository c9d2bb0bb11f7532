// How tests start Chromium (Debian's /usr/bin/chromium unless CHROMIUM_PATH says otherwise); kept
// apart from harness.ts, which imports vitest, so the project's globalSetup can read it too.
import type { LaunchOptions } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export const CHROMIUM_OPTIONS: LaunchOptions = {
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
};

declare module "vitest" {
  export interface ProvidedContext {
    /** The project's Chromium (chromium-server.ts, the project's globalSetup), when it has one. */
    chromiumEndpoint?: string;
  }
}
