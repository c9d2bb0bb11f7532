// Main-thread CPU time of a page load, read from a Chromium trace: the thread time (`tdur`) of the
// renderer main thread's top-level tasks from the navigation's start to one of the page's marks.
// Unlike wall time it hardly grows when a loaded machine takes the CPU away mid-task, so runs made
// under different load compare.

interface TraceEvent {
  name?: string;
  ph?: string;
  pid?: number;
  tid?: number;
  ts?: number;
  dur?: number;
  tdur?: number;
  args?: { data?: { documentLoaderURL?: string } };
}

export interface LoadCpu {
  /** Main-thread CPU ms from navigation start to the mark (tasks that end after it count in part). */
  cpu: number;
  /** CPU ms of the task that set the mark (for the replay: reading the history, building, layout). */
  markTask: number;
}

/** Categories enough for `loadCpu` (cheap to record). */
export const LOAD_CPU_CATEGORIES = [
  "devtools.timeline",
  "disabled-by-default-devtools.timeline",
  "blink.user_timing",
  "loading",
];

export function loadCpu(trace: Buffer | string, mark: string): LoadCpu {
  const parsed = JSON.parse(trace.toString()) as { traceEvents?: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(parsed) ? parsed : (parsed.traceEvents ?? []);
  const marked = events.find((e) => e.name === mark);
  if (!marked?.ts) throw new Error(`trace: no ${mark} mark`);
  const { pid, tid } = marked;
  const start = events.find(
    (e) => e.name === "navigationStart" && e.pid === pid && e.args?.data?.documentLoaderURL,
  )?.ts;
  if (start === undefined) throw new Error("trace: no navigationStart of the page");
  const tasks = events
    .filter((e) => e.ph === "X" && e.name === "RunTask" && e.pid === pid && e.tid === tid)
    .sort((a, b) => (a.ts as number) - (b.ts as number));
  let cpu = 0;
  let markTask = 0;
  let until = 0; // end of the current top-level task (nested tasks are inside its thread time)
  for (const t of tasks) {
    const ts = t.ts as number;
    const end = ts + (t.dur ?? 0);
    if (ts < until) continue;
    until = end;
    if (end < start || ts > marked.ts) continue;
    const thread = (t.tdur ?? 0) / 1000;
    // A task running across the start or the mark counts by the share of its wall time inside.
    const inside = (Math.min(end, marked.ts) - Math.max(ts, start)) / Math.max(1, end - ts);
    cpu += thread * Math.min(1, inside);
    if (ts <= marked.ts && marked.ts <= end) markTask = thread;
  }
  return { cpu, markTask };
}
