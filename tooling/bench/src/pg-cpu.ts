// CPU time of a PostgreSQL server (Linux /proc): the postmaster, every process it runs now
// (backends, checkpointer, WAL writer, autovacuum), and its children that exited (counted by the
// kernel in the postmaster's cutime/cstime once reaped). Like an app process's CPU seconds, it
// survives a loaded machine: time spent waiting for a CPU is not counted.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Fields after the command name of /proc/<pid>/stat (state is [0], ppid [1], utime [11]). */
function statFields(pid: string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined; // exited between the listing and the read
  }
}

/** Seconds of CPU the server at `dataDir` has used so far, leaving out the backends `exclude` (the bench's own probes). */
export function postgresCpuSeconds(dataDir: string, exclude: readonly number[] = []): number {
  const postmaster = readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0] as string;
  let ticks = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid) || exclude.includes(Number(pid))) continue;
    const self = pid === postmaster;
    const f = statFields(pid);
    if (!f || (!self && f[1] !== postmaster)) continue;
    ticks += Number(f[11]) + Number(f[12]);
    if (self) ticks += Number(f[13]) + Number(f[14]);
  }
  return ticks / 100;
}

/**
 * The same seconds by kind of process (its title after "postgres: ": checkpointer, walwriter,
 * autovacuum worker..., "backend" for a client's session, "postmaster" with its reaped children):
 * what a window's PostgreSQL CPU was spent on.
 */
export function postgresCpuByKind(dataDir: string, exclude: readonly number[] = []): Map<string, number> {
  const postmaster = readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0] as string;
  const out = new Map<string, number>();
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid) || exclude.includes(Number(pid))) continue;
    const self = pid === postmaster;
    const f = statFields(pid);
    if (!f || (!self && f[1] !== postmaster)) continue;
    let kind = "postmaster";
    if (!self) {
      let title = "";
      try {
        title = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
      } catch {}
      const name = title.replace(/^postgres: /, "");
      kind = /^(checkpointer|background writer|walwriter|autovacuum|logical replication|archiver|stats)/.test(
        name,
      )
        ? name.split(/\s+/).slice(0, 2).join(" ")
        : "backend";
    }
    const ticks = Number(f[11]) + Number(f[12]) + (self ? Number(f[13]) + Number(f[14]) : 0);
    out.set(kind, (out.get(kind) ?? 0) + ticks / 100);
  }
  return out;
}
