// The PostgreSQL datasource's knobs through the built bin. `maxHeldThreads`: `agentsvc start` on a
// project whose store's datasource sets it holds at most that many thread locks (pg_locks) while
// more threads have messages, answers every message once the held ones let go, and lets
// AGENTSVC_MAX_HELD_THREADS win over it. `idleTimeoutMs`: the store's pooled connections end while
// the service idles. `pool` bounds the store's connections (two wait on a locked table while three
// messages are sent) and `statementTimeoutMs` ends a statement's wait. `connectTimeoutMs` and `ssl` decide how start fails against a silent server
// and one without TLS; `ssl: verify-full` with `sslCaFile` (relative to the project) connects over
// TLS. `check` and `start` refuse bad values by their keys.
import { createHmac } from "node:crypto";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { advisoryKey, threadLockName } from "@agentsvc/pg-cluster";
import {
  postgresMissing,
  startPostgres,
  type TestCertificates,
  type TestPostgres,
  testCertificates,
} from "@agentsvc/pg-test";
import { connectPostgres, type PostgresStore } from "@agentsvc/store-postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runBin, type Served, serveBin } from "./child.js";
import { linkPackages, tempDir as newTempDir, writeFiles } from "./helpers.js";

// The file's temp folders (projects, gates, certificates), removed after its last server stopped:
// a run of the file left 12 of them in the temp folder.
const made: string[] = [];
const tempDir = (prefix: string) => {
  const dir = newTempDir(prefix);
  made.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const SECRET = "held-threads-secret";

// One server without TLS for every describe but verify-full's (a start and stop is ~0.4 CPU-s and
// 1.5 s at load 24): each test takes a database of its own, and what a test reads server-wide
// (pg_locks, pg_stat_activity) it filters by its thread keys or its application name.
let plainServer: Promise<TestPostgres> | undefined;
const plainPostgres = () => {
  plainServer ??= startPostgres();
  return plainServer;
};
afterAll(async () => {
  await (await plainServer)?.stop();
});

// A tool that says it was entered (a file per thread) and waits until the test opens the gate, so
// the threads it runs in stay held; the demo model calls it for a message naming it.
const AGENT = `import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
const gates = process.env.KNOB_GATES;
export default {
  kind: "agent",
  name: "bot",
  model: { provider: "demo" },
  tools: [{
    kind: "tool",
    name: "gate",
    description: "Waits at the gate.",
    input: { type: "json-schema", schema: { type: "object", properties: { note: { type: "string" } }, required: ["note"] } },
    async execute({ note }) {
      const word = note.split(" ").at(-1);
      writeFileSync(join(gates, "in-" + word), "");
      for (let waited = 0; !existsSync(join(gates, "open")) && waited < 120000; waited += 20)
        await new Promise((r) => setTimeout(r, 20));
      return "passed " + word;
    },
  }],
};
`;

const project = (datasourceKeys: string) => {
  const dir = writeFiles(tempDir("agentsvc-held-"), {
    "package.json": JSON.stringify({ name: "held-threads", private: true, type: "module" }),
    "agents/bot.mjs": AGENT,
    "gateways/hooks.yaml": "type: http\nsecretEnvVar: HOOKS_SECRET\n",
    "agentsvc.config.yaml": `datasources:\n  main:\n    type: postgres\n    urlEnvVar: DATABASE_URL\n${datasourceKeys}store: main\n`,
  });
  linkPackages(dir, { "@agentsvc/gateway-http": "packages/gateway-http" });
  return dir;
};

/** A request to the http gateway signed as its README says (v2: method, target and body). */
function hooks(url: string, method: "GET" | "POST", target: string, body?: unknown): Promise<Response> {
  const raw = body === undefined ? "" : JSON.stringify(body);
  const ts = String(Math.floor(Date.now() / 1000));
  const digest = createHmac("sha256", SECRET).update(`${ts}.${method} ${target}\n${raw}`).digest("hex");
  return fetch(`${url}${target}`, {
    method,
    headers: {
      "x-agentsvc-timestamp": ts,
      "x-agentsvc-signature": `v2=${digest}`,
      ...(raw ? { "content-type": "application/json" } : {}),
    },
    ...(raw ? { body: raw } : {}),
    signal: AbortSignal.timeout(10_000),
  });
}

async function replies(url: string, thread: string): Promise<string[]> {
  const res = await hooks(url, "GET", `/gateways/hooks/threads/${thread}/messages?after=0`);
  expect(res.status).toBe(200);
  const { messages } = (await res.json()) as { messages: { text: string }[] };
  return messages.map((m) => m.text);
}

/**
 * pg_locks' (classid, objid) of a thread's advisory lock: the high and low 32 bits of the key of
 * the session's thread id (`gw:<gateway>:<thread>`).
 */
function lockIds(thread: string): string {
  const key = BigInt.asUintN(64, advisoryKey(threadLockName(`gw:hooks:${thread}`)));
  return `${key >> 32n}:${key & 0xffffffffn}`;
}

/** Samples the threads' granted advisory locks until stopped: the most seen at once. */
function watchLocks(store: PostgresStore, threads: string[]) {
  const ids = new Set(threads.map(lockIds));
  let peak = 0;
  let now = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await store.pool.query<{ id: string }>(
        "SELECT classid::text || ':' || objid::text AS id FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1",
      );
      now = rows.filter((r) => ids.has(r.id)).length;
      peak = Math.max(peak, now);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    peak: () => peak,
    now: () => now,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const names = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`);

describe.skipIf(postgresMissing)("agentsvc start: a postgres datasource's maxHeldThreads", () => {
  let pg: TestPostgres;
  let served: Served | undefined;
  const ended: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    pg = await plainPostgres();
  }, 60_000);
  afterEach(async () => {
    await served?.stop();
    served = undefined;
    for (const end of ended.splice(0).reverse()) await end();
  });

  /** Starts the bin on a new database and sends each thread one message that runs the gated tool. */
  async function burst(keys: string, env: Record<string, string>, threads: string[]) {
    const url = await pg.createDatabase();
    const gates = tempDir("agentsvc-held-gates-");
    served = await serveBin(["start", project(keys), "--port", "0"], {
      DATABASE_URL: url,
      HOOKS_SECRET: SECRET,
      KNOB_GATES: gates,
      ...env,
    });
    const store = await connectPostgres({ connectionString: url, migrate: false, max: 1 });
    ended.push(() => store.close());
    const locks = watchLocks(store, threads);
    ended.push(() => locks.stop());
    for (const t of threads) {
      const res = await hooks(served.url, "POST", "/gateways/hooks/events", {
        id: `${t}-m0`,
        thread: t,
        text: `use the gate ${t}`,
      });
      expect(res.status).toBe(202);
    }
    const entered = () => readdirSync(gates).filter((f) => f.startsWith("in-")).length;
    return { url: served.url, gates, locks, entered };
  }

  it("holds at most 2 threads' locks while 6 threads have messages, says the cap binds, and answers every message once the gate opens", async () => {
    const threads = names(6);
    const { url, gates, locks, entered } = await burst(
      "    maxHeldThreads: 2\n",
      { AGENTSVC_MAX_HELD_THREADS: "" },
      threads,
    );
    const s = served as Served;
    // Two turns at the gate and the cap's warning, or more turns than the cap let in (then red below).
    await until(
      () => (entered() >= 2 && /holding the most threads allowed at once/.test(s.output())) || entered() > 2,
      "two turns at the gate and the warning that threads wait",
    );
    expect(entered()).toBe(2);
    await until(() => locks.now() === 2, "the two held threads' locks in pg_locks");
    expect(s.output()).toMatch(/"max":2,"waiting":[1-4],"msg":"holding the most threads allowed at once/);
    writeFileSync(join(gates, "open"), "");
    await until(
      async () => (await Promise.all(threads.map((t) => replies(url, t)))).every((r) => r.length >= 1),
      "a reply in every thread",
      90_000,
    );
    for (const t of threads) expect(await replies(url, t)).toEqual([`The tool gate returned: passed ${t}.`]);
    expect(entered()).toBe(6);
    expect(locks.peak()).toBe(2);
  }, 180_000);

  it("AGENTSVC_MAX_HELD_THREADS, when set, wins over the datasource's maxHeldThreads", async () => {
    const { gates, entered } = await burst(
      "    maxHeldThreads: 2\n",
      { AGENTSVC_MAX_HELD_THREADS: "3" },
      names(5),
    );
    const s = served as Served;
    await until(
      () => /holding the most threads allowed at once/.test(s.output()) || entered() > 3,
      "the warning that threads wait",
    );
    expect(s.output()).toMatch(/"max":3,"waiting":[12],"msg":"holding the most threads allowed at once/);
    await until(() => entered() >= 3, "three turns at the gate");
    expect(entered()).toBe(3);
    writeFileSync(join(gates, "open"), "");
    await until(() => entered() === 5, "the waiting threads' turns");
  }, 180_000);

  it("check and start refuse a maxHeldThreads below 1 and a negative idleTimeoutMs, naming each key", async () => {
    const dir = project("    maxHeldThreads: 0\n    idleTimeoutMs: -5\n");
    const env = { DATABASE_URL: await pg.createDatabase(), HOOKS_SECRET: SECRET };
    for (const verb of ["check", "start"]) {
      const r = runBin([verb, dir], env);
      expect(r.code, r.stdout).toBe(1);
      expect(r.stderr).toContain(
        "agentsvc.config.yaml: datasources.main.maxHeldThreads: must be at least 1 (threads one instance holds at once, each an advisory lock) (got 0)",
      );
      expect(r.stderr).toContain(
        "agentsvc.config.yaml: datasources.main.idleTimeoutMs: must be at least 0 (how long an idle pooled connection is kept, in ms; 0 keeps it until stop) (got -5)",
      );
    }
  }, 60_000);
});

describe.skipIf(postgresMissing)(
  "agentsvc start: a postgres datasource's idleTimeoutMs, pool and statementTimeoutMs",
  () => {
    let pg: TestPostgres;
    let served: Served;
    let store: PostgresStore;
    let url: string;

    beforeAll(async () => {
      pg = await plainPostgres();
      url = await pg.createDatabase();
      // The store's connections are told apart by their application name (the cluster link keeps its own).
      served = await serveBin(
        [
          "start",
          // statementTimeoutMs well above a loaded event loop's stalls: the two waits of a round overlap.
          project(
            "    pool: 2\n    applicationName: idle-knob\n    idleTimeoutMs: 200\n    statementTimeoutMs: 1000\n",
          ),
          "--port",
          "0",
        ],
        { DATABASE_URL: url, HOOKS_SECRET: SECRET, KNOB_GATES: tempDir("agentsvc-idle-gates-") },
      );
      store = await connectPostgres({ connectionString: url, migrate: false, max: 1 });
    }, 60_000);
    afterAll(async () => {
      await served?.stop();
      await store?.close();
    });

    /** The store's connections (by application name), or those of them waiting for a lock. */
    const pooled = async (where = "") =>
      Number(
        (
          await store.pool.query<{ n: string }>(
            `SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'idle-knob' ${where}`,
          )
        ).rows[0]?.n,
      );
    const send = (id: string) =>
      hooks(served.url, "POST", "/gateways/hooks/events", { id, thread: id, text: `hello ${id}` });

    it("ends the store's idle pooled connections while the service runs, and opens one again for the next message", async () => {
      // The most seen at once: the name is the store's (a count of 0 would prove nothing otherwise).
      let seen = 0;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          seen = Math.max(seen, await pooled());
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      expect((await send("before")).status).toBe(202);
      await until(async () => (await replies(served.url, "before")).length === 1, "the first reply");
      // With the default (10 minutes) the connections the start and the turn opened stay.
      await until(async () => (await pooled()) === 0, "no pooled connection left open");
      expect((await send("after")).status).toBe(202);
      await until(
        async () => (await replies(served.url, "after")).length === 1,
        "the reply after the pool emptied",
      );
      sampling = false;
      await sampler;
      expect(seen).toBeGreaterThanOrEqual(1);
    }, 120_000);

    it("pool: 2 lets two statements wait on a locked table at once (three messages sent); statementTimeoutMs ends each wait with an error instead of the lock holder's release", async () => {
      const locker = await connectPostgres({ connectionString: url, migrate: false, max: 1 });
      const held = await locker.pool.connect();
      let waiting = 0;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          waiting = Math.max(waiting, await pooled("AND wait_event_type = 'Lock'"));
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      try {
        await held.query("BEGIN");
        await held.query("LOCK TABLE inbox IN ACCESS EXCLUSIVE MODE");
        // Each message's recording waits for the lock; the table stays locked until every answer is in.
        const answers = await Promise.all(["s0", "s1", "s2"].map((id) => send(id)));
        expect(answers.map((a) => a.status).filter((status) => status === 202)).toEqual([]);
      } finally {
        sampling = false;
        await sampler;
        await held.query("ROLLBACK").catch(() => {});
        held.release();
        await locker.close();
      }
      expect(waiting).toBe(2);
      expect(served.output()).toContain("canceling statement due to statement timeout");
    }, 60_000);
  },
);

describe.skipIf(postgresMissing)("agentsvc start: a postgres datasource's ssl and connectTimeoutMs", () => {
  let pg: TestPostgres;
  let silent: Server;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    pg = await plainPostgres();
    // Takes the connection and never answers: only the connect timeout ends the wait.
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", () => r()));
  }, 60_000);
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => silent?.close(r));
  });

  it("connectTimeoutMs bounds the first connection: start fails naming the bound and the host", () => {
    const { port } = silent.address() as { port: number };
    const r = runBin(["start", project("    connectTimeoutMs: 300\n"), "--port", "0"], {
      DATABASE_URL: `postgres://app:secret-pw@127.0.0.1:${port}/app`,
      HOOKS_SECRET: SECRET,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `datasources\\.main: cannot reach PostgreSQL at postgres://app:\\*\\*\\*@127\\.0\\.0\\.1:${port}/app within 300 ms`,
      ),
    );
    expect(r.stderr).not.toContain("secret-pw");
  });

  it("ssl: require against a server without TLS fails start with what to set", async () => {
    const r = runBin(["start", project('    ssl: "require"\n'), "--port", "0"], {
      DATABASE_URL: await pg.createDatabase(),
      HOOKS_SECRET: SECRET,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/datasources\.main: PostgreSQL at .* does not accept TLS connections/);
    expect(r.stderr).toContain("set ssl: off on the datasource");
  });
});

describe.skipIf(postgresMissing)(
  "agentsvc start: a postgres datasource's ssl: verify-full with sslCaFile",
  () => {
    let pg: TestPostgres;
    let served: Served | undefined;
    let certs: TestCertificates;

    beforeAll(async () => {
      certs = testCertificates();
      made.push(certs.dir);
      pg = await startPostgres({
        settings: ["ssl = on", `ssl_cert_file = '${certs.certFile}'`, `ssl_key_file = '${certs.keyFile}'`],
      });
    }, 60_000);
    afterAll(async () => {
      await served?.stop();
      await pg?.stop();
    });

    it("connects over TLS checking the server certificate against the project's CA file; without it start names sslCaFile", async () => {
      const url = await pg.createDatabase();
      const keys = '    ssl: "verify-full"\n    sslCaFile: ./certs/ca.pem\n    applicationName: tls-knob\n';
      const dir = project(keys);
      // Without the CA file: the certificate is not accepted, and the error says what to set.
      const missing = runBin(["start", project('    ssl: "verify-full"\n'), "--port", "0"], {
        DATABASE_URL: url,
        HOOKS_SECRET: SECRET,
      });
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain("the server certificate was not accepted");
      expect(missing.stderr).toContain("set sslCaFile to the CA that signed it");
      writeFiles(dir, { "certs/ca.pem": readFileSync(certs.caFile, "utf8") });
      served = await serveBin(["start", dir, "--port", "0"], { DATABASE_URL: url, HOOKS_SECRET: SECRET });
      const store = await connectPostgres({ connectionString: url, migrate: false, max: 1 });
      try {
        const { rows } = await store.pool.query<{ ssl: boolean }>(
          "SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'tls-knob'",
        );
        expect(rows.length).toBeGreaterThan(0);
        expect(rows.every((r) => r.ssl)).toBe(true);
      } finally {
        await store.close();
      }
    }, 60_000);
  },
);
