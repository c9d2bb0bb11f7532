// Crash points for the crash tests (agentsvc's own and adapters'): `AGENTSVC_FAULT=<point>:<n>` makes the process SIGKILL itself
// the n-th time it reaches <point>. Unset (always, outside those tests) it costs one comparison.
const spec = process.env.AGENTSVC_FAULT ?? "";
const [faultPoint, faultCount] = spec.split(":");
const target = Number(faultCount ?? "1") || 1;
let reached = 0;

export type FaultPoint =
  | "after-record"
  | "turn-started"
  | "turn-saved"
  | "after-commit"
  | "before-send"
  | "mid-send"
  | "mid-resume"
  /** A schedule tick was claimed in the store and its message not yet recorded (scheduler). */
  | "schedule-claimed";

export function fault(point: FaultPoint): void {
  if (point !== faultPoint) return;
  reached += 1;
  if (reached >= target) process.kill(process.pid, "SIGKILL");
}
