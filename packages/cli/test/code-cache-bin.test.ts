// `agentsvc start` (the built bin) runs the command as one script with a code cache made after the
// service ran (bin/script-bundle.js, #45.1): the cache is written once the first start is idle, a
// later start uses it and leaves it as it is, and a cache that is corrupt or V8 rejects never fails
// a start: it compiles and writes a good one. NODE_DEBUG=agentsvc prints what the bin did.
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Script } from "node:vm";
import { crc32 } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { invoke, outputUntil, type Served, serveBin } from "./child.js";
import { BOT_AGENT, tempDir, writeFiles } from "./helpers.js";

let served: Served | undefined;
afterEach(async () => {
  await served?.stop();
  served = undefined;
});

const project = () =>
  writeFiles(tempDir("agentsvc-code-cache-"), {
    "agents/bot.mjs": BOT_AGENT,
    "gateways/agent.yaml": "exposes: agent\npath: /agent\n",
  });

/** Starts the project, asks one question, waits until the service was idle (its heap trim). */
async function startAndIdle(dir: string, cacheDir: string): Promise<string> {
  served = await serveBin(["start", dir, "--port", "0"], {
    NODE_COMPILE_CACHE: cacheDir,
    NODE_DEBUG: "agentsvc",
    LOG_LEVEL: "debug",
  });
  expect((await invoke(served.url)).status).toBe(200);
  const out = await outputUntil(served, (o) => o.includes("heap trimmed after start (idle)"), 10_000);
  await served.stop();
  served = undefined;
  return out;
}

/** The one cache file the bin keeps in Node's compile cache folder. */
function cacheFile(cacheDir: string): string {
  const found = readdirSync(cacheDir, { recursive: true, encoding: "utf8" }).filter((f) =>
    /agentsvc-script-[0-9a-f]+-[0-9a-f]+\.bin$/.test(f),
  );
  expect(found).toHaveLength(1);
  return join(cacheDir, found[0] as string);
}

const whole = (file: string) => {
  const data = readFileSync(file);
  return data.readUInt32LE(0) === crc32(data.subarray(4));
};

describe("agentsvc start's code cache", () => {
  it("is written once the first start is idle, an earlier build's removed; the next start uses it and does not write it again", async () => {
    const dir = project();
    const cacheDir = tempDir("agentsvc-node-cache-");
    const first = await startAndIdle(dir, cacheDir);
    expect(first).toMatch(/code cache \S+: none\n/);
    expect(first).toMatch(/code cache \S+: written \(\d+ bytes\)/);
    const file = cacheFile(cacheDir);
    expect(whole(file)).toBe(true);

    // An earlier build's cache of this install (same prefix, another hash) goes when one is written.
    const [prefix] = /^.*agentsvc-script-[0-9a-f]+-/.exec(file) as RegExpExecArray;
    writeFileSync(`${prefix}0123456789abcdef.bin`, "an earlier build's cache");
    rmSync(file);
    await startAndIdle(dir, cacheDir);
    expect(cacheFile(cacheDir)).toBe(file);
    const written = statSync(file);

    const second = await startAndIdle(dir, cacheDir);
    expect(second).toMatch(/code cache \S+: used\n/);
    expect(second).not.toContain("written");
    expect(statSync(file).mtimeMs).toBe(written.mtimeMs);
    expect(statSync(file).ino).toBe(written.ino);
  }, 60_000);

  it("that is corrupt does not fail a start: it compiles, answers and writes a good one", async () => {
    const dir = project();
    const cacheDir = tempDir("agentsvc-node-cache-");
    await startAndIdle(dir, cacheDir);
    const file = cacheFile(cacheDir);
    const data = readFileSync(file);
    data.fill(0x5a, 4096, 8192);
    writeFileSync(file, data);

    const out = await startAndIdle(dir, cacheDir);
    expect(out).toMatch(/code cache \S+: corrupt, compiling/);
    expect(out).toMatch(/code cache \S+: written/);
    expect(whole(file)).toBe(true);
    expect(await startAndIdle(dir, cacheDir)).toMatch(/code cache \S+: used\n/);
  }, 90_000);

  it("is neither read nor written with Node's compile cache off (NODE_DISABLE_COMPILE_CACHE=1): the start answers as before", async () => {
    const dir = project();
    const cacheDir = tempDir("agentsvc-node-cache-");
    served = await serveBin(["start", dir, "--port", "0"], {
      NODE_COMPILE_CACHE: cacheDir,
      NODE_DISABLE_COMPILE_CACHE: "1",
      NODE_DEBUG: "agentsvc",
      LOG_LEVEL: "debug",
    });
    expect((await invoke(served.url)).status).toBe(200);
    const out = await outputUntil(served, (o) => o.includes("heap trimmed after start (idle)"), 10_000);
    expect(out).not.toContain("code cache");
    expect(readdirSync(cacheDir, { recursive: true })).toEqual([]);
  }, 30_000);

  it("that V8 rejects (another script's code, whole) does not fail a start and is replaced", async () => {
    const dir = project();
    const cacheDir = tempDir("agentsvc-node-cache-");
    await startAndIdle(dir, cacheDir);
    const file = cacheFile(cacheDir);
    const other = new Script("(function () { return 1; })").createCachedData();
    const crc = Buffer.alloc(4);
    crc.writeUInt32LE(crc32(other));
    writeFileSync(file, Buffer.concat([crc, other]));

    const out = await startAndIdle(dir, cacheDir);
    expect(out).toMatch(/code cache \S+: rejected\n/);
    expect(out).toMatch(/code cache \S+: written/);
    expect(await startAndIdle(dir, cacheDir)).toMatch(/code cache \S+: used\n/);
  }, 90_000);
});
