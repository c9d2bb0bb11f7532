import { packageConfig } from "../../tooling/vitest.preset.ts";

// One PostgreSQL server for the files (test/pg-server.global.ts).
export default packageConfig(import.meta.dirname, {
  globalSetup: ["test/pg-server.global.ts"],
  reuseProcesses: true,
});
