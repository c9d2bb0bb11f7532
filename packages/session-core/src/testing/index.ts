export {
  createMockGateway,
  createMockGateway as createGateway,
  MockGateway,
  type MockGatewayOptions,
  type MockSent,
  type MockStreamCall,
  type MockStreamOptions,
} from "./mock-gateway.js";
export {
  contractCases,
  ContractRig,
  type GatewayHarness,
  type PlatformMessage,
  runGatewayContract,
} from "./contract.js";
export { createMemorySessionStore } from "./memory-store.js";
export { contractAgent } from "./contract-rig.js";
export { createMemoryCluster, type MemoryCluster } from "./memory-cluster.js";
