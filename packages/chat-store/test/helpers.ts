import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { ChatDb, type ChatDbOptions } from "../src/index.js";

const dirs: string[] = [];
const open: ChatDb[] = [];

afterEach(() => {
  for (const db of open.splice(0)) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh app root in the OS temp dir, removed after the test. */
export function tempRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), "chat-store-"));
  dirs.push(dir);
  return dir;
}

/** A manual clock in ms. */
export function clock(start = Date.UTC(2025, 0, 1)) {
  let now = start;
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
    set(ms: number) {
      now = ms;
    },
  };
}

/** Opens a store (closed after the test). */
export function openStore(options: Partial<ChatDbOptions> & { appRoot?: string } = {}): ChatDb {
  const db = ChatDb.open({ appRoot: options.appRoot ?? tempRoot(), ...options });
  open.push(db);
  return db;
}
