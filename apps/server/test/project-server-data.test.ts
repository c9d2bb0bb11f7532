// startProjectServer clears <root>/data on start and close: two test files serving one folder at
// once deleted each other's SQLite store (examples/chat-fakes, #45). The servers of one file share
// the folder; another file's start is refused while a live owner holds it, and taken over once it
// is gone.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { threadId } from "node:worker_threads";
import { afterEach, expect, it } from "vitest";
import { type ProjectServer, startProjectServer } from "../src/testing.js";
import { DATA_CLAIM_FILE } from "../src/testing-data-claim.js";

let root: string | undefined;
const servers: ProjectServer[] = [];
let sleeper: ChildProcess | undefined;

afterEach(async () => {
  for (const s of servers.splice(0).reverse()) await s.close();
  sleeper?.kill();
  sleeper = undefined;
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

function project(): string {
  root = mkdtempSync(join(tmpdir(), "agentsvc-project-server-data-"));
  mkdirSync(join(root, "agents"));
  writeFileSync(
    join(root, "package.json"),
    JSON.stringify({ name: "data-fixture", private: true, type: "module" }),
  );
  writeFileSync(
    join(root, "agents/ops.mjs"),
    `export default { kind: "agent", name: "ops", model: { provider: "demo", script: [{ text: "ok" }] } };\n`,
  );
  return root;
}

const start = async (dir: string) => {
  const server = await startProjectServer(dir, { env: {} });
  servers.push(server);
  return server;
};

/** A file in data/ that a start clearing the folder would delete. */
const mark = (dir: string) => writeFileSync(join(dir, "data", "marker"), "kept");
const marked = (dir: string) => existsSync(join(dir, "data", "marker"));
const owner = (dir: string, pid: number, thread: number) => {
  mkdirSync(join(dir, "data"), { recursive: true });
  writeFileSync(join(dir, "data", DATA_CLAIM_FILE), JSON.stringify({ pid, thread }));
};

it("two servers of one test file share the folder: the second start keeps the first's data, the last close removes it", async () => {
  const dir = project();
  const a = await start(dir);
  mark(dir);
  const b = await start(dir);
  expect(marked(dir)).toBe(true);
  await b.close();
  expect(marked(dir)).toBe(true);
  await a.close();
  expect(existsSync(join(dir, "data"))).toBe(false);
});

it("refuses a folder another live process serves, and leaves its data alone", async () => {
  const dir = project();
  sleeper = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
  owner(dir, sleeper.pid as number, 0);
  mark(dir);
  await expect(startProjectServer(dir, { env: {} })).rejects.toThrow(
    `is served by another test server now (process ${sleeper.pid}, thread 0)`,
  );
  expect(marked(dir)).toBe(true);
});

it("refuses a folder another thread of this process serves", async () => {
  const dir = project();
  owner(dir, process.pid, threadId + 1);
  mark(dir);
  await expect(startProjectServer(dir, { env: {} })).rejects.toThrow("is served by another test server now");
  expect(marked(dir)).toBe(true);
});

it("takes over a folder whose owner is gone (a killed run): its data cleared, then served", async () => {
  const dir = project();
  const gone = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((r) => gone.once("exit", r));
  owner(dir, gone.pid as number, 0);
  mark(dir);
  const server = await start(dir);
  expect(marked(dir)).toBe(false);
  expect((await fetch(`${server.url}/health/live`)).status).toBe(200);
});

it("after a shutdown the data stays to read and the folder is given back", async () => {
  const dir = project();
  const a = await start(dir);
  mark(dir);
  await a.shutdown();
  expect(marked(dir)).toBe(true);
  expect(existsSync(join(dir, "data", DATA_CLAIM_FILE))).toBe(false);
});

it("close and shutdown remove the server's build folder (its temp folder of built pages)", async () => {
  const dir = project();
  const temp = mkdtempSync(join(tmpdir(), "agentsvc-project-server-temp-"));
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = temp; // os.tmpdir() reads it on each call
  try {
    const a = await start(dir);
    const b = await start(dir);
    expect(readdirSync(temp)).toHaveLength(2);
    await b.shutdown();
    expect(readdirSync(temp)).toHaveLength(1);
    await a.close();
    expect(readdirSync(temp)).toEqual([]);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    rmSync(temp, { recursive: true, force: true });
  }
});
