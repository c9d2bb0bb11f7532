export { createMockGateway, MockGateway, type MockGatewayOptions, type MockSent } from "./mock-gateway.js";
export {
  type GatewayHarness,
  type PlatformMessage,
  RecordingContext,
  runGatewayContract,
} from "./contract.js";
