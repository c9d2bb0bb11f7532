import { packageConfig } from "../../tooling/vitest.preset.ts";

export default packageConfig(import.meta.dirname, { testTimeout: 30_000 });
