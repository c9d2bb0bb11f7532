// `@agentsvc/config-schema/adapter`: what an adapter package builds its exports with (the contract
// types, the schema pieces whose messages every entry shares, the doctor helpers). Small on
// purpose: an adapter's schema and doctor load without the rest of agentsvc.
export type {
  AdapterDoctor,
  AdapterEntrySchema,
  AdapterInfo,
  AdapterKind,
  AdapterScheduleTarget,
  DoctorContext,
  DoctorResult,
} from "./contract.js";
export { type InstalledManifest, installedManifest } from "./installed.js";
export { adapterPackageOf, isAdapterPackageName, isRegistryName, MOCK_ADAPTER } from "./package-name.js";
export { callJson, field, secretOf, trimUrl } from "./doctor-kit.js";
export { envVarName, httpUrl, integerIn, nonEmptyString } from "../schemas/common.js";
export { parseDuration } from "../schemas/schedule.js";
