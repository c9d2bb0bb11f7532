import { createMockGateway, runGatewayContract } from "../src/testing/index.js";
import { mockHarness } from "./mock-harness.js";

runGatewayContract("mock (interactive channel)", async () =>
  mockHarness(() => createMockGateway({ name: "mock" })),
);

runGatewayContract("mock (text-only push, no threads)", async () =>
  mockHarness(() =>
    createMockGateway({
      kind: "push",
      type: "sms-like",
      capabilities: { interactiveActions: false, threads: false },
      messageLimit: 1600,
    }),
  ),
);
