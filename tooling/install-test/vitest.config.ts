import { packageConfig } from "../vitest.preset.ts";

// Packing and two npm installs take tens of seconds on a shared machine; each step is bounded below.
export default packageConfig(import.meta.dirname, { testTimeout: 300_000 });
