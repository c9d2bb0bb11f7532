// Per-file phases of a vitest run, slowest first, to see what a project's time goes to without
// running the whole suite (#45): `npx vitest run --reporter=default --reporter=<path to this file>`.
// Writes test-output/file-times.tsv (git-ignored) where vitest runs: seconds of prepare, collect
// (importing the file and all it imports), tests (tests and hooks) and their sum, per file, with
// when it ended (seconds from the run's start) and its lane: "shared" (the two threads that run
// one project after another) or "forked". Lines starting with # close the file: when each lane's
// last file ended and, in the shared lane, each project's span (the lane is the sum of the spans).
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { Reporter, TestModule } from "vitest/node";

const s = (ms: number) => (ms / 1000).toFixed(1);

interface Row {
  file: string;
  project: string;
  lane: string;
  prepare: number;
  collect: number;
  tests: number;
  ended: number;
}

const total = (r: Row) => r.prepare + r.collect + r.tests;

export default class FileTimes implements Reporter {
  #rows: Row[] = [];
  #start = Date.now();

  onTestRunStart(): void {
    this.#start = Date.now();
  }

  onTestModuleEnd(module: TestModule): void {
    const d = module.diagnostic();
    this.#rows.push({
      file: relative(process.cwd(), module.moduleId),
      project: module.project.name,
      lane: module.project.config.pool === "threads" ? "shared" : "forked",
      prepare: d.prepareDuration,
      collect: d.collectDuration,
      tests: d.duration,
      ended: Date.now() - this.#start,
    });
  }

  onTestRunEnd(): void {
    const rows = this.#rows.sort((a, b) => total(b) - total(a));
    const sum = (k: "prepare" | "collect" | "tests") => rows.reduce((n, r) => n + r[k], 0);
    const lines = [
      "total\tprepare\tcollect\ttests\tended\tlane\tfile",
      ...rows.map((r) =>
        [s(total(r)), s(r.prepare), s(r.collect), s(r.tests), s(r.ended), r.lane, r.file].join("\t"),
      ),
      [
        s(sum("prepare") + sum("collect") + sum("tests")),
        s(sum("prepare")),
        s(sum("collect")),
        s(sum("tests")),
        "",
        "",
        `(${rows.length} files)`,
      ].join("\t"),
    ];
    for (const lane of ["shared", "forked"]) {
      const of = rows.filter((r) => r.lane === lane);
      if (of.length)
        lines.push(
          `# ${lane}: ${of.length} files, the last ended at ${s(Math.max(...of.map((r) => r.ended)))} s`,
        );
    }
    // A shared project starts when its first file starts (ended minus its phases).
    const spans = new Map<string, { from: number; to: number }>();
    for (const r of rows.filter((r) => r.lane === "shared")) {
      const span = spans.get(r.project) ?? { from: Number.POSITIVE_INFINITY, to: 0 };
      spans.set(r.project, { from: Math.min(span.from, r.ended - total(r)), to: Math.max(span.to, r.ended) });
    }
    for (const [project, { from, to }] of [...spans].sort((a, b) => a[1].from - b[1].from))
      lines.push(`# shared ${project}: ${s(from)}-${s(to)} s (${s(to - from)} s)`);
    mkdirSync("test-output", { recursive: true });
    writeFileSync(join("test-output", "file-times.tsv"), `${lines.join("\n")}\n`);
  }
}
