import { splitPackageConfig } from "../../tooling/vitest.preset.ts";

// Files that share modules in the shared threads (#45): they run the CLI in the test's own process
// (main() with captured output) and leave nothing behind. The others run in child processes: they
// spawn the built bin (child.ts, model-table.ts), change process.env (build), expose gc
// (idle-trim) or register a build step for the process (build-steps); schedules waits out tick
// periods for 20 s, which would hold one of the two shared threads. Each puts back what it changes
// (build's variables, build-steps' step does nothing after its file), so they reuse the processes.
export const split = splitPackageConfig(import.meta.dirname, { reuseProcesses: true }, [
  "test/bundle-chunks.test.ts",
  "test/check.test.ts",
  "test/cli.test.ts",
  "test/doctor-email.test.ts",
  "test/doctor-models.test.ts",
  "test/doctor-postgres.test.ts",
  "test/doctor.test.ts",
  "test/hash-password.test.ts",
  "test/help-typo.test.ts",
  "test/init-welcome.test.ts",
  "test/init.test.ts",
  "test/outbox-escapes.test.ts",
  "test/outbox.test.ts",
  "test/page-step.test.ts",
  "test/pairing.test.ts",
  "test/printer-escapes.test.ts",
  "test/syntax-frame.test.ts",
]);

export default split.whole;
