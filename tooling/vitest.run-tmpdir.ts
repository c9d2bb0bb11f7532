// Imported first by the root config (a side-effect import): the run's temp folder is chosen before
// any project config is built, so packageConfig (vitest.preset.ts) sees whether the run has a folder
// of its own, removed at its exit, and leaves out the per-file temp-folder removal then.
import { useRamTmpDir } from "./vitest.tmpdir.ts";

// The run's temp files in memory when the machine has room (tooling/vitest.tmpdir.ts says why).
useRamTmpDir();
