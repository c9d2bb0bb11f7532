// A throwaway PostgreSQL server from Debian's packages, for tests: a fresh data directory in the
// temp folder, a free port on 127.0.0.1, trust auth for loopback only, stopped (and deleted) after,
// by stop() or, when the process that started it is gone without stopping it, by its watchdog.
// PostgreSQL refuses to run as root, so under root the server runs as the `postgres` system user.
// The data directory is a copy of one initdb output kept in the temp folder (made by the first
// start on the machine): initdb was most of a start, 2.9-5.7 s against 0.7-1.3 s for the copy
// (measured alternately in one run, load 13), paid by some 25 test files.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { tryLock } from "./file-lock.js";
import { watchServer } from "./watchdog.js";

export interface TestPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  readonly url: string;
  readonly port: number;
  /** The server's data directory (its `postmaster.pid` names the server process). */
  readonly dataDir: string;
  /**
   * A new database on this server, empty or a copy of `options.template` (a database of this server
   * nobody is connected to); returns its connection string.
   */
  createDatabase(name?: string, options?: { template?: string }): Promise<string>;
  /**
   * A login role that must give its password (scram-sha-256 from 127.0.0.1; other roles keep trust),
   * in effect when this resolves.
   */
  addPasswordRole(role: string, password: string): Promise<void>;
  /** Drops these databases of this server (`WITH (FORCE)`: their connections are ended first). */
  dropDatabases(names: readonly string[]): Promise<void>;
  /** Fast shutdown, then the data directory is removed. Safe to call twice. */
  stop(): Promise<void>;
}

/** What another process needs to use a running server (`usePostgres`): plain data, for vitest's `provide`. */
export interface PostgresAddress {
  port: number;
  dataDir: string;
}

/** The directory of the newest installed PostgreSQL server binaries, or undefined. */
export function postgresBinDir(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "postgres")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], "bin") : undefined;
}

/** Why PostgreSQL tests cannot run here, or undefined when they can. */
export const postgresMissing: string | undefined = postgresBinDir()
  ? undefined
  : "PostgreSQL server binaries not found under /usr/lib/postgresql (apt-get install postgresql)";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

const isRoot = typeof process.getuid === "function" && process.getuid() === 0;

// By its full path: runuser lives in /usr/sbin on Debian, which a PATH set for a job may leave out
// (every PostgreSQL test then failed with "postgres exited with -2", spawn's ENOENT).
const runuser = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].find(existsSync) ?? "runuser";

function asServerUser(bin: string, args: string[]): [string, string[]] {
  return isRoot ? [runuser, ["-u", "postgres", "--", bin, ...args]] : [bin, args];
}

function postgresUid(): { uid: number; gid: number } {
  const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
  return { uid, gid };
}

class PortTaken extends Error {}

/**
 * Ready when pg_isready answers on the port and the server answering runs on our data directory
 * (another test's server may hold the port: PortTaken).
 */
async function waitReady(
  bin: string,
  port: number,
  data: string,
  child: ChildProcess,
  log: () => string,
): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) {
      const message = `postgres exited with ${child.exitCode}:\n${log()}`;
      throw /could not bind|could not create any TCP\/IP sockets/i.test(log())
        ? new PortTaken(message)
        : new Error(message);
    }
    try {
      execFileSync(join(bin, "pg_isready"), ["-h", "127.0.0.1", "-p", String(port), "-q"]);
    } catch {
      if (Date.now() > deadline) throw new Error(`postgres did not become ready in 20 s:\n${log()}`);
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    let serving: string;
    try {
      serving = execFileSync(
        join(bin, "psql"),
        ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-w", "-tAq", "-c", "SHOW data_directory"],
        { stdio: "pipe" },
      )
        .toString()
        .trim();
    } catch {
      // Ready and then refusing a trusted login: starting up or shutting down; ask again.
      if (Date.now() > deadline) throw new Error(`postgres did not answer a query in 20 s:\n${log()}`);
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    if (serving === data) return;
    throw new PortTaken(`port ${port} is served by another PostgreSQL (${serving})`);
  }
}

const INITDB_ARGS = ["-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C", "-N"];

// The machine's temp folder, not a root test run's own (tooling/vitest.tmpdir.ts), which is removed
// at the run's end: kept for the next run.
const templateBase = () => process.env.AGENTSVC_TEST_OS_TMPDIR ?? tmpdir();

/**
 * The folder of the initdb template for this PostgreSQL and server user in `base` (its lock file is
 * the folder's name and `.lock`). Throws when the binaries are missing.
 */
export function initdbTemplate(base = templateBase()): string {
  const bin = postgresBinDir();
  if (!bin) throw new Error(postgresMissing);
  const owner = isRoot ? "postgres" : String(process.getuid?.() ?? "user");
  const key = `${basename(dirname(bin))}-${owner}-${INITDB_ARGS.join("").replace(/[^A-Za-z0-9]/g, "")}`;
  return join(base, `agentsvc-pg-template-${key}`);
}

/**
 * A data directory initdb made with INITDB_ARGS for this PostgreSQL major and server user, made once
 * and never started (each server runs on a copy). One process on the machine runs initdb, holding a
 * lock file beside the template; the others wait for it (several files of a run start a server at
 * once on a machine without the template, and each ran initdb). Made in a directory of its own and
 * renamed into place, so a reader never sees a half-made one, and two makers (a stale lock removed
 * by two waiters at once) leave one.
 */
async function templateData(bin: string): Promise<string> {
  const base = templateBase();
  const template = initdbTemplate(base);
  const made = () => existsSync(join(template, "data", "PG_VERSION"));
  while (!made()) {
    // initdb took 2.9-5.7 s at load 13: a lock a minute old is its holder's hang, not its work.
    const lock = tryLock(`${template}.lock`, 60_000);
    if (!lock) {
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    try {
      if (!made()) makeTemplate(bin, base, template);
    } finally {
      lock.release();
    }
  }
  return join(template, "data");
}

function makeTemplate(bin: string, base: string, template: string): void {
  const staging = mkdtempSync(join(base, "agentsvc-pg-staging-"));
  if (isRoot) {
    const { uid, gid } = postgresUid();
    chownSync(staging, uid, gid);
  }
  chmodSync(staging, 0o700);
  const [initCmd, initArgs] = asServerUser(join(bin, "initdb"), [
    "-D",
    join(staging, "data"),
    ...INITDB_ARGS,
  ]);
  try {
    execFileSync(initCmd, initArgs, { stdio: "pipe" });
    try {
      renameSync(staging, template);
    } catch (err) {
      // Another maker's rename won: its template serves.
      if (!existsSync(join(template, "data", "PG_VERSION"))) throw err;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Starts a new server. Throws when the binaries are missing (check `postgresMissing` first). */
export async function startPostgres(
  options: {
    maxConnections?: number;
    /** Keep PostgreSQL's own durability (fsync, synchronous commit) for benchmarks. Default off: tests. */
    durable?: boolean;
    /** More `postgresql.conf` lines, e.g. `shared_preload_libraries = 'pg_stat_statements'` (benchmarks). */
    settings?: string[];
    /**
     * Start it as a hot standby with no primary (a `standby.signal`): in recovery for good, it takes
     * read-only sessions and refuses what a replica refuses (writes, LISTEN, NOTIFY), as the replica
     * a datasource may point at by mistake. `createDatabase` fails on it: use `url`.
     */
    standby?: boolean;
  } = {},
): Promise<TestPostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error(postgresMissing);
  const dir = mkdtempSync(join(tmpdir(), "agentsvc-pg-"));
  const data = join(dir, "data");
  if (isRoot) {
    const { uid, gid } = postgresUid();
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  // cp -a keeps the server user's ownership and the 0700 mode PostgreSQL insists on.
  execFileSync("cp", ["-a", await templateData(bin), data], { stdio: "pipe" });
  if (options.standby) writeFileSync(join(data, "standby.signal"), "");
  // Before the first postgres starts: this process may be killed while it waits for the server.
  const watchdog = watchServer(dir, join(data, "postmaster.pid"), pgCtlStop(bin, data, "immediate"));
  // A port chosen by freePort() can be bound by another test's server before ours binds it: then
  // ours exits ("could not bind") while pg_isready sees the other one; start again on another port.
  let port = 0;
  let child: ChildProcess | undefined;
  for (let attempt = 1; !child; attempt++) {
    port = await freePort();
    // Tests: durability is the server's job, not the test's; fsync off keeps suites fast.
    const conf = [
      `listen_addresses = '127.0.0.1'`,
      `port = ${port}`,
      `unix_socket_directories = '${dir}'`,
      `max_connections = ${options.maxConnections ?? 100}`,
      ...(options.durable ? [] : ["fsync = off", "synchronous_commit = off", "full_page_writes = off"]),
      "shared_buffers = 32MB",
      ...(options.settings ?? []),
    ].join("\n");
    writeFileSync(join(data, "postgresql.auto.conf"), `${conf}\n`);
    let output = "";
    const [cmd, args] = asServerUser(join(bin, "postgres"), ["-D", data]);
    const started = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    started.stdout?.on("data", (d: Buffer) => (output += d.toString()));
    started.stderr?.on("data", (d: Buffer) => (output += d.toString()));
    // A spawn that fails (a missing program) names itself in the error waitReady throws.
    started.once("error", (err) => (output += `${err.message}\n`));
    try {
      await waitReady(bin, port, data, started, () => output);
      child = started;
    } catch (err) {
      if (!(err instanceof PortTaken) || attempt === 5) throw err;
      if (started.exitCode === null) {
        const exited = new Promise((r) => started.once("exit", r));
        started.kill("SIGKILL");
        await exited;
      }
    }
  }
  const server = child;

  let stopped = false;
  return handle(bin, port, data, async () => {
    if (stopped) return;
    stopped = true;
    if (server.exitCode === null) {
      const exited = new Promise((r) => server.once("exit", r));
      const [stopCmd, stopArgs] = pgCtlStop(bin, data, "fast");
      try {
        execFileSync(stopCmd, stopArgs, { stdio: "pipe" });
      } catch {
        server.kill("SIGKILL");
      }
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
    watchdog.release();
  });
}

/** Signals to the runuser wrapper do not reach the server; pg_ctl signals it by its pid file. */
function pgCtlStop(bin: string, data: string, mode: "fast" | "immediate"): [string, string[]] {
  return asServerUser(join(bin, "pg_ctl"), ["-D", data, "-m", mode, "-w", "-t", "10", "stop"]);
}

/**
 * A server another process started (e.g. a vitest globalSetup's, one for a project's files): its
 * databases are this process's to make and drop; `stop()` leaves the server running.
 */
export function usePostgres(address: PostgresAddress): TestPostgres {
  const bin = postgresBinDir();
  if (!bin) throw new Error(postgresMissing);
  return handle(bin, address.port, address.dataDir, async () => {});
}

function handle(bin: string, port: number, data: string, stop: () => Promise<void>): TestPostgres {
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const psql = (sql: string[], user = "postgres", env: Record<string, string> = {}) =>
    execFileSync(
      join(bin, "psql"),
      [
        "-h",
        "127.0.0.1",
        "-p",
        String(port),
        "-U",
        user,
        "-d",
        "postgres",
        "-w",
        "-tAq",
        ...sql.flatMap((q) => ["-c", q]),
      ],
      { stdio: "pipe", env: { ...process.env, ...env } },
    ).toString();
  let n = 0;
  return {
    url,
    port,
    dataDir: data,
    async createDatabase(name, options = {}) {
      const db = name ?? `t${process.pid}_${++n}_${Date.now().toString(36)}`;
      for (const id of [db, options.template ?? db])
        if (!/^[a-z_][a-z0-9_]*$/.test(id)) throw new Error(`bad database name "${id}"`);
      psql([`CREATE DATABASE ${db}${options.template ? ` TEMPLATE ${options.template}` : ""}`]);
      return `postgres://postgres@127.0.0.1:${port}/${db}`;
    },
    async dropDatabases(names) {
      for (const id of names)
        if (!/^[a-z_][a-z0-9_]*$/.test(id)) throw new Error(`bad database name "${id}"`);
      if (names.length > 0) psql(names.map((id) => `DROP DATABASE IF EXISTS ${id} WITH (FORCE)`));
    },
    async addPasswordRole(role, password) {
      if (!/^[a-z_][a-z0-9_]*$/.test(role)) throw new Error(`bad role name "${role}"`);
      psql([`CREATE ROLE ${role} LOGIN PASSWORD '${password.replaceAll("'", "''")}'`]);
      const hba = psql(["SHOW hba_file"]).trim();
      writeFileSync(hba, `host all ${role} 127.0.0.1/32 scram-sha-256\n${readFileSync(hba, "utf8")}`);
      psql(["SELECT pg_reload_conf()"]);
      // The postmaster rereads pg_hba.conf after the signal: wait until a wrong password is refused.
      const deadline = Date.now() + 10_000;
      for (;;) {
        try {
          psql(["SELECT 1"], role, { PGPASSWORD: `not-${password}` });
        } catch {
          return;
        }
        if (Date.now() > deadline) throw new Error("pg_hba.conf reload did not take effect in 10 s");
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    stop,
  };
}
export { giveToServer, type TestCertificates, testCertificates } from "./tls.js";
