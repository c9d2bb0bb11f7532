// Per-file phases of a vitest run, slowest first, to see what a project's time goes to without
// running the whole suite (#45): `npx vitest run --reporter=default --reporter=<path to this file>`.
// Writes test-output/file-times.tsv (git-ignored) where vitest runs: seconds of prepare, collect
// (importing the file and all it imports), tests (tests and hooks) and their sum, per file.
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { Reporter, TestModule } from "vitest/node";

const s = (ms: number) => (ms / 1000).toFixed(1);

interface Row {
  file: string;
  prepare: number;
  collect: number;
  tests: number;
}

const total = (r: Row) => r.prepare + r.collect + r.tests;

export default class FileTimes implements Reporter {
  #rows: Row[] = [];

  onTestModuleEnd(module: TestModule): void {
    const d = module.diagnostic();
    this.#rows.push({
      file: relative(process.cwd(), module.moduleId),
      prepare: d.prepareDuration,
      collect: d.collectDuration,
      tests: d.duration,
    });
  }

  onTestRunEnd(): void {
    const rows = this.#rows.sort((a, b) => total(b) - total(a));
    const sum = (k: "prepare" | "collect" | "tests") => rows.reduce((n, r) => n + r[k], 0);
    const lines = [
      "total\tprepare\tcollect\ttests\tfile",
      ...rows.map((r) => [s(total(r)), s(r.prepare), s(r.collect), s(r.tests), r.file].join("\t")),
      [
        s(sum("prepare") + sum("collect") + sum("tests")),
        s(sum("prepare")),
        s(sum("collect")),
        s(sum("tests")),
        `(${rows.length} files)`,
      ].join("\t"),
    ];
    mkdirSync("test-output", { recursive: true });
    writeFileSync(join("test-output", "file-times.tsv"), `${lines.join("\n")}\n`);
  }
}
