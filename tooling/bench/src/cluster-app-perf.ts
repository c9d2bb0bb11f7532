// BENCH_CLUSTER_PERF (#45.3 appprobe11): where the instances' own CPU goes in cluster-cost's measured
// bursts, from the same `perf record -a -g` as PostgreSQL's split (cluster-perf.ts). The instances
// run with `--perf-basic-prof-only-functions` (V8 writes /tmp/perf-<pid>.map, naming each compiled
// JS function with its file, so perf can name JS frames) and `--interpreted-frames-native-stack`
// (an interpreted function gets its own copy of the interpreter's entry, so it is named too); this
// Node's binary keeps its symbols and frame pointers, so a stack runs whole from the kernel through
// V8's C++ and builtins to the JS that asked for it. perf samples CPU time only (cpu-clock), every
// thread: V8's GC and compiler workers and libuv's pool too, which a V8 CPU profile does not see.
// Each sample counts for:
// - its group: V8 GC or the JIT when a frame of theirs is on the stack; otherwise the package of
//   the nearest JS frame outside Node's own modules (the kernel's and V8's work for a socket write
//   goes to the pg driver or the HTTP server that asked); Node's modules with no caller of ours
//   above them by module; no JS frame at all by thread and native frame (the event loop's poll);
// - its function: the nearest JS frame ("self": with the builtins and C++ it called), and every
//   distinct JS function on its stack ("inclusive": what a call costs with its callees);
// - its leaf: where the CPU was spent (JS code, V8's builtins, V8's C++, Node's C++, libc, kernel).
import { execFileSync } from "node:child_process";
import { closeSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync } from "node:fs";

/** The instances' Node flags for perf to name their JS frames (allowed in NODE_OPTIONS). */
export const APP_PERF_FLAGS = "--perf-basic-prof-only-functions --interpreted-frames-native-stack";

export interface AppTally {
  samples: number;
  /** Samples by group, thread name, leaf kind, function (self and inclusive), native leaf symbol. */
  group: Map<string, number>;
  thread: Map<string, number>;
  leaf: Map<string, number>;
  self: Map<string, number>;
  inclusive: Map<string, number>;
  symbol: Map<string, number>;
  /** Samples by the cluster's own work they are part of (LEVERS), and by group and self function. */
  lever: Map<string, number>;
  /** The same by where its CPU went (JS code, builtins, V8's C++, kernel, ...). */
  leverLeaf: Map<string, number>;
  groupSelf: Map<string, number>;
  /** By group and the tier its nearest JS frame's code ran in (code below Turbofan costs more a call). */
  groupTier: Map<string, number>;
  /** Code V8 compiled in the bursts (new lines of the perf map), by tier and function: recompiles show here. */
  compiled: Map<string, number>;
  /** The instances' CPU seconds over the bursts from /proc, to check perf's sample count against. */
  procSeconds: number;
  /** Context switches (main thread and the others, voluntary: the loop waited) and minor page faults, from /proc. */
  counts: Map<string, number>;
}

export const appTally = (): AppTally => ({
  samples: 0,
  group: new Map(),
  thread: new Map(),
  leaf: new Map(),
  self: new Map(),
  inclusive: new Map(),
  symbol: new Map(),
  lever: new Map(),
  leverLeaf: new Map(),
  groupSelf: new Map(),
  groupTier: new Map(),
  compiled: new Map(),
  procSeconds: 0,
  counts: new Map(),
});

const add = (m: Map<string, number>, k: string, n = 1) => m.set(k, (m.get(k) ?? 0) + n);

interface Frame {
  sym: string;
  dso: string;
}

/** Any frame of V8's collectors: the scavenger, mark-compact, concurrent marking, sweeping, cppgc. */
const GC =
  /^(v8::internal::.*(Scaveng|MarkCompact|Marking|Sweep|Evacuat|CollectGarbage|GarbageCollect|MinorMS|MemoryReducer|PointersUpdat|RememberedSet|Heap::Perform|HeapVisitor|MarkingBarrier)|cppgc::|heap::base::|v8::internal::GCTracer)/;
/** Any frame of V8's compilers (Turbofan, Turboshaft, Maglev, Sparkplug), parser, bytecode generator, deoptimizer. */
const JIT =
  /^(v8::internal::(compiler::|maglev::|baseline::|Compiler::|OptimizingCompileDispatcher|Parser|PreParser|Scanner|BytecodeGenerator|interpreter::BytecodeGenerator|Deoptimizer|turboshaft::|LazyCompileDispatcher)|Builtins_CompileLazy)/;

/**
 * What a sample is part of, by the nearest JS frame from the leaf that names one (a take set off
 * by an announcement counts as the take). Only the work done on the stack of these functions: a
 * statement's reply is read later from its socket, under the pg driver (by group), not under them.
 */
const LEVERS: [string, RegExp][] = [
  [
    "thread takes, adoptions, let-gos, recovery (session-core ownership; the announcing accept's record)",
    /^(#take|#acquire|claim|#claim|takeFresh|#letGo|#letGoLater|#letGoIdleNow|#giveBack|poke|settle|adopt|withHeld|claimSoon|sweep|lost|forget) session-core\/ownership\.js|^recover session-core\/recovery\.js|^adopt session-core\/session(-lead)?\.js|session-core\/(hold-timers|recent-let-gos|sweep)\.js|^(acquireOrAnnounce|recordAnnounce) server\/cluster|^recordAnnounceFor session-core\/dispatch/,
  ],
  [
    "link statements (lock batches, the serial queue, lock-or-notify)",
    /^\S+ pg-cluster\/(lock-batch|serial|thread-locks|role-lock|incarnation)\.js|^(query|tryLock\w*|unlock\w*|held\w*|busy) pg-cluster\/link\.js/,
  ],
  ["outbox sender (due reads, shares, wakes, sends)", /session-core\/(outbox-[\w-]+|session-sender)\.js/],
  ["bus publish (flushes)", /^(#flush|publish) pg-cluster\/bus\.js/],
  [
    "notifications received (the link's listener, the bus's parse and dispatch)",
    /^(_handleNotification|parseNotificationMessage) pg|^#(emit|deliver) pg-cluster\/(link|bus)\.js|^onCluster session-core/,
  ],
  ["leadership and partitions", /pg-cluster\/leadership\.js|session-core\/session-lead\.js/],
  ["timers (no lever above)", /^(processTimers|listOnTimeout) node:internal\/timers/],
];
const NO_LEVER = "per-message work (no cluster lever on the stack)";

/** A JS frame from a perf map: "JS:*name file:///…/x.js:12:3" (the marker is the tier). */
const isJs = (f: Frame) => f.dso.endsWith(".map") && f.sym.startsWith("JS:");
/** The frame's file with its line and column ("file:///…/x.js:12:3"), and without them. */
const placeOf = (f: Frame) => f.sym.slice(f.sym.lastIndexOf(" ") + 1);
const urlOf = (f: Frame) => placeOf(f).replace(/(:\d+){1,2}$/, "");

/** The group of a JS file: our package, an npm package (the pg driver and the HTTP server by name), Node's. */
export function packageOf(url: string): string {
  if (url.startsWith("node:")) return url;
  const npm = /.*\/node_modules\/(@[^/]+\/[^/]+|[^/]+)\//.exec(url)?.[1];
  if (npm) {
    if (/^(pg|pg-protocol|pg-pool|pg-types|pg-connection-string|postgres-\w+|pgpass)$/.test(npm))
      return "pg driver";
    if (npm === "hono" || npm === "@hono/node-server") return "hono/node http";
    return `npm ${npm}`;
  }
  const ours = /\/(packages|apps)\/([^/]+)\//.exec(url);
  if (ours) return ours[1] === "apps" ? `apps/${ours[2]}` : (ours[2] as string);
  if (url.includes("/tooling/bench/")) return "bench server script";
  return "other JS";
}

/** Node's own modules with none of our frames above them, by what they do. */
function nodeGroup(url: string): string {
  if (/^node:(_http|http|internal\/http)/.test(url)) return "hono/node http";
  if (/^node:(net|internal\/stream|stream|internal\/streams|_stream)/.test(url)) return "node net/streams";
  if (/timers/.test(url)) return "node timers";
  // Promises' reactions and nextTick callbacks run here before any function of ours resumes.
  if (url === "node:internal/process/task_queues") return "promise/microtask machinery";
  if (url.startsWith("node:internal/modules")) return "node module loader";
  return "node other";
}

/** V8's marker in a perf map name ("JS:*f"): the tier that compiled the code. */
const TIERS: Record<string, string> = {
  "~": "interpreted",
  "^": "Sparkplug (baseline)",
  "+": "Maglev",
  "*": "Turbofan",
};
/** An apostrophe after the marker: code specialised to one closure's context, compiled per closure. */
const tierOf = (f: Frame | undefined) =>
  f
    ? `${TIERS[f.sym.charAt(3)] ?? `other (${f.sym.charAt(3)})`}${f.sym.charAt(4) === "'" ? " (context-specialised)" : ""}`
    : "no JS frame";

/** "name pkg/file.js:line" for a JS frame (the tier marker and column dropped). */
function fnLabel(f: Frame): string {
  const body = f.sym.slice(3).replace(/^[~^+*'!-]+/, "");
  const at = body.lastIndexOf(" ");
  const name = (at >= 0 ? body.slice(0, at) : "") || "(anonymous)";
  const url = placeOf(f);
  const where =
    /\/(?:packages|apps)\/(.+)$/.exec(url)?.[1] ??
    /.*\/node_modules\/(.+)$/.exec(url)?.[1] ??
    url.replace(/^file:\/\//, "");
  return `${name} ${where.replace(/\/dist\//, "/").replace(/:\d+$/, "")}`;
}

function leafKind(f: Frame | undefined): string {
  if (!f) return "none";
  if (isJs(f)) return "JS code";
  if (f.dso.includes("kernel")) return "kernel";
  if (f.sym.startsWith("Builtins_")) return "V8 builtins (and the interpreter)";
  if (f.sym.startsWith("v8::") || f.sym.startsWith("cppgc::")) return "V8 C++ (runtime, JSON, ICs)";
  if (f.sym.startsWith("node::") || f.sym.startsWith("uv_") || f.sym.startsWith("llhttp"))
    return "Node C++ and libuv";
  if (/libc|libstdc|libm|ld-linux/.test(f.dso)) return "libc";
  return "other native";
}

/** Adds one sample (frames leaf first) of thread `thread`. */
function tallyOne(thread: string, frames: Frame[], into: AppTally): void {
  into.samples++;
  add(into.thread, thread);
  const leaf = frames[0];
  add(into.leaf, leafKind(leaf));
  if (leaf && !isJs(leaf)) add(into.symbol, leaf.sym.replace(/\(.*$/, ""));
  const js = frames.filter(isJs);
  const nearest = js[0];
  if (nearest) add(into.self, fnLabel(nearest));
  for (const label of new Set(js.map(fnLabel))) add(into.inclusive, label);
  const labels = js.map(fnLabel);
  const lever = labels.map((l) => LEVERS.find(([, re]) => re.test(l))?.[0]).find((x) => x !== undefined);
  add(into.lever, lever ?? NO_LEVER);
  add(into.leverLeaf, `${lever ?? NO_LEVER} · ${leafKind(leaf)}`);
  let group: string;
  if (frames.some((f) => GC.test(f.sym))) group = "V8 GC";
  else if (frames.some((f) => JIT.test(f.sym))) group = "V8 JIT (compile, parse, deopt)";
  else {
    const ours = js.find((f) => !urlOf(f).startsWith("node:"));
    if (ours) group = packageOf(urlOf(ours));
    else if (nearest) group = nodeGroup(urlOf(nearest));
    else if (thread !== "MainThread") group = `${thread} thread, no JS`;
    else if (frames.some((f) => /^uv__io_poll|epoll_wait/.test(f.sym)))
      group = "event loop poll (libuv, no JS)";
    else if (frames.some((f) => f.sym.startsWith("llhttp"))) group = "hono/node http";
    else if (frames.every((f) => f.dso.includes("kernel"))) group = "kernel, no user stack";
    else group = "main thread native, no JS";
  }
  add(into.group, group);
  add(into.groupTier, `${group} · ${tierOf(nearest)}`);
  add(
    into.groupSelf,
    `${group} · ${nearest ? fnLabel(nearest) : (leaf?.sym.replace(/\(.*$/, "") ?? "none")}`,
  );
}

/**
 * A process's JS code by address, from V8's perf map. Code freed by the GC leaves its line in the
 * map, and new code can take its address: perf then names a frame with either, which it picks
 * by the tree it keeps, not by age (in a first run `removeListener` took 0.06 ms a message on one
 * instance and none on three). The map is appended in time order, so the last entry covering an
 * address is the code there at the burst (read at its end, after every instance warmed up).
 */
class PerfMap {
  readonly #starts: number[] = [];
  readonly #ends: number[] = [];
  readonly #names: string[] = [];
  readonly #order: number[] = [];
  readonly #maxSize: number = 0;
  readonly #cache = new Map<number, string | null>();
  readonly file: string;

  constructor(pid: number) {
    this.file = mapFile(pid);
    let text = "";
    try {
      text = readFileSync(this.file, "utf8");
    } catch {}
    const rows: [number, number, string, number][] = [];
    for (const line of text.split("\n")) {
      const a = line.indexOf(" ");
      const b = line.indexOf(" ", a + 1);
      if (a < 0 || b < 0) continue;
      const start = Number.parseInt(line.slice(0, a), 16);
      const size = Number.parseInt(line.slice(a + 1, b), 16);
      rows.push([start, start + size, line.slice(b + 1), rows.length]);
      if (size > this.#maxSize) this.#maxSize = size;
    }
    rows.sort((x, y) => x[0] - y[0]);
    for (const [start, end, name, order] of rows) {
      this.#starts.push(start);
      this.#ends.push(end);
      this.#names.push(name);
      this.#order.push(order);
    }
  }

  /** The newest code covering `ip`, or null. */
  name(ip: number): string | null {
    const cached = this.#cache.get(ip);
    if (cached !== undefined) return cached;
    let lo = 0;
    let hi = this.#starts.length - 1;
    let at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((this.#starts[mid] as number) <= ip) {
        at = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    let best = -1;
    for (let i = at; i >= 0 && (this.#starts[i] as number) > ip - this.#maxSize - 1; i--)
      if (
        (this.#ends[i] as number) > ip &&
        (best < 0 || (this.#order[i] as number) > (this.#order[best] as number))
      )
        best = i;
    const out = best >= 0 ? (this.#names[best] as string) : null;
    this.#cache.set(ip, out);
    return out;
  }
}

/** Reads a burst's perf file: the samples of the instances `pids`. */
export function tallyAppSamples(file: string, pids: readonly number[], into: AppTally): void {
  if (pids.length === 0) return;
  const maps = new Map(pids.map((pid) => [pid, new PerfMap(pid)]));
  const out = execFileSync(
    "perf",
    ["script", "-i", file, "--pid", pids.join(","), "-F", "comm,pid,tid,ip,sym,dso"],
    { stdio: ["ignore", "pipe", "ignore"], maxBuffer: 2 ** 30 },
  ).toString();
  for (const block of out.split("\n\n")) {
    const lines = block.split("\n").filter((l) => l.trim() !== "");
    const head = lines[0];
    if (!head) continue;
    // "MainThread 1234/1235" (the comm may hold spaces); frames "addr sym (dso)", the sym may too.
    const ids = /\s(\d+)\/\d+\s*$/.exec(head);
    const map = maps.get(Number(ids?.[1]));
    const thread = head.trim().replace(/\s+\d+\/\d+\s*$/, "");
    const frames = lines.slice(1).map((l) => {
      const t = l.trim();
      const open = t.lastIndexOf(" (");
      const space = t.indexOf(" ");
      const frame = {
        sym: t.slice(space + 1, open >= 0 ? open : undefined),
        dso: open >= 0 ? t.slice(open + 2, -1) : "",
      };
      // JIT code (perf's name for it from the map, or none): the map's newest entry there instead.
      if (map && (frame.dso.endsWith(".map") || frame.sym === "[unknown]")) {
        const name = map.name(Number.parseInt(t.slice(0, space), 16));
        if (name) return { sym: name, dso: map.file };
      }
      return frame;
    });
    tallyOne(thread, frames, into);
  }
}

/** The instances' context switches by thread kind and minor faults so far (/proc; a thread that exited is lost). */
export function appCounts(pids: readonly number[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      add(out, "minor page faults", Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[7]));
      // Read and write system calls (a socket's read, write and writev among them).
      const io = readFileSync(`/proc/${pid}/io`, "utf8");
      add(out, "read calls", Number(/^syscr:\s+(\d+)/m.exec(io)?.[1] ?? 0));
      add(out, "write calls", Number(/^syscw:\s+(\d+)/m.exec(io)?.[1] ?? 0));
      for (const task of readdirSync(`/proc/${pid}/task`)) {
        const status = readFileSync(`/proc/${pid}/task/${task}/status`, "utf8");
        const who = task === String(pid) ? "main thread" : "other threads";
        add(
          out,
          `${who} voluntary switches`,
          Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0),
        );
        add(
          out,
          `${who} involuntary switches`,
          Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0),
        );
      }
    } catch {}
  }
  return out;
}

const mapFile = (pid: number) => `/tmp/perf-${pid}.map`;

/** Each instance's perf map size now: where a burst's compiled code starts. */
export function perfMapSizes(pids: readonly number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    try {
      out.set(pid, statSync(mapFile(pid)).size);
    } catch {}
  }
  return out;
}

/** Adds the code compiled since `from` (perfMapSizes) to `into.compiled`, by tier and function. */
export function tallyCompiled(from: Map<number, number>, into: AppTally): void {
  for (const [pid, offset] of from) {
    let text = "";
    try {
      const fd = openSync(mapFile(pid), "r");
      try {
        const buf = Buffer.alloc(statSync(mapFile(pid)).size - offset);
        readSync(fd, buf, 0, buf.length, offset);
        text = buf.toString("utf8");
      } finally {
        closeSync(fd);
      }
    } catch {}
    for (const line of text.split("\n")) {
      const name = line.split(" ").slice(2).join(" ");
      if (!name.startsWith("JS:")) continue;
      const f = { sym: name, dso: ".map" };
      add(into.compiled, `${tierOf(f)} · ${fnLabel(f)}`);
      add(into.compiled, `all · ${tierOf(f)}`);
    }
  }
}

/**
 * V8's perf maps of stopped instances (a few MB each), and the logs their isolates write in the
 * working directory once V8's logger is on (`isolate-0x…-<pid>-v8.log`: the perf flags turn it on;
 * NODE_OPTIONS takes no `--logfile` to send them elsewhere).
 */
export function dropPerfMaps(pids: readonly number[]): void {
  const logs = readdirSync(".").filter((f) => /^isolate-0x[0-9a-f]+-\d+-v8\.log$/.test(f));
  for (const pid of pids) {
    rmSync(mapFile(pid), { force: true });
    for (const f of logs.filter((l) => l.endsWith(`-${pid}-v8.log`))) rmSync(f, { force: true });
  }
}

const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);

/** One configuration's app CPU, ms a message summed over its instances. */
/**
 * Samples to CPU ms: perf's share of each, times /proc's CPU. Under load perf loses samples (its
 * buffer fills while it waits for a CPU): 70-90% of /proc's at load 15-20, and not alike in one's and
 * three's bursts, so raw sample counts would compare the configurations by perf's losses.
 */
const scaleOf = (t: AppTally, hz: number) => (t.samples > 0 ? (t.procSeconds * hz) / t.samples : 1);

export function appLines(title: string, t: AppTally, messages: number, hz: number): string[] {
  const f = scaleOf(t, hz);
  const ms = (n: number) => ((n * f * 1000) / hz / messages).toFixed(3);
  const part = (label: string, m: Map<string, number>, n: number) =>
    `  ${label}: ${top(m, n)
      .map(([k, v]) => `${k} ${ms(v)}`)
      .join(", ")}`;
  return [
    `${title}: app CPU ms a message, /proc's CPU split by perf's samples (${ms(t.samples)}; perf saw ${((100 * t.samples) / hz / Math.max(t.procSeconds, 1e-9)).toFixed(0)}% of it)`,
    part("by group", t.group, 40),
    part("by thread", t.thread, 8),
    part("by leaf", t.leaf, 10),
    part("by cluster lever", t.lever, 10),
    `  a message: ${[...t.counts].map(([k, v]) => `${k} ${(v / messages).toFixed(2)}`).join(", ")}`,
    part("top native leaf symbols", t.symbol, 15),
    part("top functions, self (with the builtins and C++ they called)", t.self, 25),
  ];
}

/**
 * One against three: the groups and the functions whose ms a message differ most (three - one),
 * the figure to read: each configuration's processes all ran the same code for the same messages.
 */
export function appDiffLines(
  one: { t: AppTally; messages: number },
  three: { t: AppTally; messages: number },
  hz: number,
): string[] {
  // Samples as ms a message of /proc's CPU (scaleOf); `counts`: per 1,000 messages instead.
  const per = (x: { t: AppTally; messages: number }, n: number | undefined, counts = false) =>
    counts ? ((n ?? 0) * 1000) / x.messages : ((n ?? 0) * 1000 * scaleOf(x.t, hz)) / hz / x.messages;
  const diff = (label: string, pick: (t: AppTally) => Map<string, number>, n: number, counts = false) => {
    const keys = new Set([...pick(one.t).keys(), ...pick(three.t).keys()]);
    const rows = [...keys]
      .map(
        (k) => [k, per(one, pick(one.t).get(k), counts), per(three, pick(three.t).get(k), counts)] as const,
      )
      .sort((a, b) => Math.abs(b[2] - b[1]) - Math.abs(a[2] - a[1]))
      .slice(0, n);
    return [
      `  ${label} (${counts ? "per 1,000 messages" : "ms a message"}: one, three, three - one):`,
      ...rows.map(
        ([k, a, b]) =>
          `    ${a.toFixed(3)}  ${b.toFixed(3)}  ${(b - a >= 0 ? "+" : "") + (b - a).toFixed(3)}  ${k}`,
      ),
    ];
  };
  return [
    `app CPU, three instances against one: /proc ${per(one, one.t.samples).toFixed(3)} vs ${per(three, three.t.samples).toFixed(3)} ms a message, split by perf's samples (perf saw ${((100 * one.t.samples) / hz / Math.max(one.t.procSeconds, 1e-9)).toFixed(0)}% and ${((100 * three.t.samples) / hz / Math.max(three.t.procSeconds, 1e-9)).toFixed(0)}% of it)`,
    ...diff("by group", (t) => t.group, 30),
    ...diff("by thread", (t) => t.thread, 6),
    ...diff("by leaf", (t) => t.leaf, 8),
    ...diff("functions, self", (t) => t.self, 40),
    ...diff("functions, inclusive", (t) => t.inclusive, 60),
    ...diff("by cluster lever", (t) => t.lever, 10),
    `  a message, one vs three: ${[...three.t.counts.keys()]
      .map(
        (k) =>
          `${k} ${((one.t.counts.get(k) ?? 0) / one.messages).toFixed(2)} vs ${((three.t.counts.get(k) ?? 0) / three.messages).toFixed(2)}`,
      )
      .join(", ")}`,
    ...diff("by cluster lever and leaf", (t) => t.leverLeaf, 20),
    ...diff("by group and the tier of its nearest JS frame", (t) => t.groupTier, 30),
    ...diff("code objects compiled in the bursts", (t) => t.compiled, 30, true),
    ...diff("by group and self function", (t) => t.groupSelf, 40),
    ...diff("native leaf symbols", (t) => t.symbol, 20),
  ];
}

/** The tally as JSON (maps as objects), for reading a run again without running it. */
export const appJson = (t: AppTally, messages: number) =>
  JSON.stringify(
    {
      messages,
      samples: t.samples,
      procSeconds: t.procSeconds,
      ...Object.fromEntries(
        (
          [
            "group",
            "thread",
            "leaf",
            "lever",
            "leverLeaf",
            "groupSelf",
            "groupTier",
            "compiled",
            "self",
            "inclusive",
            "symbol",
            "counts",
          ] as const
        ).map((k) => [k, Object.fromEntries(top(t[k], Number.POSITIVE_INFINITY))]),
      ),
    },
    null,
    1,
  );
