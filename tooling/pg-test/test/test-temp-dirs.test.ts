// tooling/vitest.temp-dirs.ts: a temp folder a test helper makes with testTempDir goes when the file
// ends (removeTestTempDirs, the afterAll of every package's setup file), with all it holds, unless
// AGENTSVC_TEST_KEEP_TMP is set (to look into after a run).
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { removeTestTempDirs, testTempDir } from "../../vitest.temp-dirs.js";

const saved = process.env.AGENTSVC_TEST_KEEP_TMP;
afterEach(() => {
  if (saved === undefined) delete process.env.AGENTSVC_TEST_KEEP_TMP;
  else process.env.AGENTSVC_TEST_KEEP_TMP = saved;
});

it("removes the folders testTempDir made, with what they hold, once", () => {
  delete process.env.AGENTSVC_TEST_KEEP_TMP;
  const a = testTempDir("agentsvc-temp-dirs-test-");
  const b = testTempDir("agentsvc-temp-dirs-test-");
  mkdirSync(join(a, "data/deep"), { recursive: true });
  writeFileSync(join(a, "data/deep/file"), "x");
  removeTestTempDirs();
  expect([existsSync(a), existsSync(b)]).toEqual([false, false]);
  const c = testTempDir("agentsvc-temp-dirs-test-");
  removeTestTempDirs();
  expect(existsSync(c)).toBe(false);
});

it("keeps them with AGENTSVC_TEST_KEEP_TMP=1", () => {
  process.env.AGENTSVC_TEST_KEEP_TMP = "1";
  const kept = testTempDir("agentsvc-temp-dirs-test-");
  removeTestTempDirs();
  expect(existsSync(kept)).toBe(true);
  rmSync(kept, { recursive: true });
});
