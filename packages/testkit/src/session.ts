// `@agentsvc/testkit/session`: a gateway inside a real session, for end-to-end tests. Separate from
// the fakes because it loads session-core's testing store (which needs vitest).
export { type CapturedLogs, captureLogs, type LogLine } from "./logs.js";
export { gatewayAlone, type StartedGateway, startGatewayAlone } from "./gateway-context.js";
export { type MemoryBlobs, memoryBlobs } from "./memory-blobs.js";
export { runSenderAccessSuite, type SenderAccessWorld } from "./access-suite.js";
export { type SessionRig, type SessionRigOptions, startSessionRig } from "./session-rig.js";
export { eventually } from "./wait.js";
export {
  type CommonOutcome,
  connectionFixtureTable,
  expectCommonOutcome,
  expectNothingDelivered,
  type FixtureRun,
  loadFixtures,
  runFixtureGateway,
} from "./fixture-runner.js";
