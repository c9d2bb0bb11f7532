// The initdb template is made once on a machine: test processes that start a server at once wait
// for the one that runs initdb, and a lock left by a killed or hung process does not stop the next.
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { initdbTemplate, postgresMissing } from "../src/index.js";

const source = resolve(import.meta.dirname, "../src/index.ts");

// A test process of its own: loads pg-test's sources (their `./x.js` imports are `./x.ts` files),
// counts the initdb commands it runs, says "ready", starts and stops a server on a line on stdin,
// and prints what it did.
const CHILD = `import cp from "node:child_process";
import { existsSync } from "node:fs";
import { registerHooks, syncBuiltinESMExports } from "node:module";
import { fileURLToPath } from "node:url";
registerHooks({
  resolve(spec, ctx, next) {
    if (spec.startsWith(".") && spec.endsWith(".js") && ctx.parentURL?.endsWith(".ts")) {
      const ts = new URL(spec.slice(0, -3) + ".ts", ctx.parentURL);
      if (existsSync(fileURLToPath(ts))) return next(ts.href, ctx);
    }
    return next(spec, ctx);
  },
});
let initdb = 0;
const run = cp.execFileSync;
cp.execFileSync = (cmd, args, ...rest) => {
  if ([cmd, ...(args ?? [])].some((a) => String(a).endsWith("/initdb"))) initdb++;
  return run(cmd, args, ...rest);
};
syncBuiltinESMExports();
const { startPostgres } = await import(${JSON.stringify(source)});
process.stdout.write("ready\\n");
await new Promise((r) => process.stdin.once("data", r));
const pg = await startPostgres();
await pg.stop();
process.stdout.write(JSON.stringify({ initdb }) + "\\n");
process.exit(0);`;

interface Started {
  child: ChildProcess;
  ready: Promise<void>;
  done: Promise<{ initdb: number }>;
}

/** A test process whose template folder (the machine's temp folder for pg-test) is `base`. */
function testProcess(base: string): Started {
  const child = spawn(process.execPath, ["--input-type=module", "-e", CHILD], {
    env: { ...process.env, AGENTSVC_TEST_OS_TMPDIR: base },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  let ready!: () => void;
  const isReady = new Promise<void>((r) => (ready = r));
  child.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
    if (out.startsWith("ready\n")) ready();
  });
  child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const done = new Promise<{ initdb: number }>((resolve, reject) =>
    child.once("exit", (code) => {
      const last = out.trim().split("\n").at(-1) ?? "";
      if (code === 0 && last.startsWith("{")) resolve(JSON.parse(last));
      else reject(new Error(`test process exited with ${code}:\n${out}\n${err}`));
    }),
  );
  // A process that fails before "ready" rejects both.
  const readyOrFailed = Promise.race([isReady, done.then(() => {})]);
  return { child, ready: readyOrFailed, done };
}

const folders: string[] = [];
const children: ChildProcess[] = [];

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const f of folders.splice(0)) rmSync(f, { recursive: true, force: true });
});

/** An empty folder for the template, which the server's user (PostgreSQL's, under root) can enter. */
function emptyBase(): string {
  const base = mkdtempSync(join(tmpdir(), "agentsvc-pg-base-"));
  chmodSync(base, 0o1777);
  folders.push(base);
  return base;
}

async function startAtOnce(base: string, n: number): Promise<number[]> {
  const started = Array.from({ length: n }, () => testProcess(base));
  children.push(...started.map((s) => s.child));
  await Promise.all(started.map((s) => s.ready));
  for (const s of started) s.child.stdin?.write("go\n");
  return (await Promise.all(started.map((s) => s.done))).map((d) => d.initdb);
}

describe.skipIf(postgresMissing)("the initdb template", () => {
  it("two processes starting a server at once on a machine without the template run initdb once", async () => {
    const base = emptyBase();
    const runs = await startAtOnce(base, 2);
    expect(runs.reduce((a, b) => a + b, 0)).toBe(1);
    // The template and nothing else: no lock, no staging folder.
    expect(readdirSync(base)).toEqual([basename(initdbTemplate(base))]);
  }, 120_000);

  it("a lock left by a process killed while it ran initdb does not stop the next start", async () => {
    const base = emptyBase();
    const template = initdbTemplate(base);
    const gone = spawn(process.execPath, ["-e", ""]);
    await new Promise((r) => gone.once("exit", r));
    writeFileSync(`${template}.lock`, `${gone.pid} left`);
    // Dated ahead: only its holder's death frees it, not its age.
    const ahead = new Date(Date.now() + 3_600_000);
    utimesSync(`${template}.lock`, ahead, ahead);
    expect(await startAtOnce(base, 1)).toEqual([1]);
    expect(readdirSync(base)).toEqual([basename(template)]);
  }, 120_000);

  it("a lock a live process has held for over a minute (hung) does not stop the next start", async () => {
    const base = emptyBase();
    const template = initdbTemplate(base);
    writeFileSync(`${template}.lock`, `${process.pid} hung`);
    const old = new Date(Date.now() - 120_000);
    utimesSync(`${template}.lock`, old, old);
    expect(await startAtOnce(base, 1)).toEqual([1]);
    expect(readdirSync(base)).toEqual([basename(template)]);
  }, 120_000);
});
