import { packageConfig } from "../../tooling/vitest.preset.ts";

export default packageConfig(import.meta.dirname, { reuseProcesses: true });
