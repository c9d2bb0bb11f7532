import { packageConfig } from "../vitest.preset.ts";

export default packageConfig(import.meta.dirname);
