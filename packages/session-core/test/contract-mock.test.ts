import { createMockGateway, runGatewayContract } from "../src/testing/index.js";

runGatewayContract("mock (interactive)", async () => {
  const gateway = createMockGateway({ name: "mock" });
  return {
    gateway,
    inject: async (m) => {
      await gateway.inject(m);
    },
    sent: async () => gateway.sent,
    choose: async (request, decision) => {
      await gateway.decide(request.requestId, decision);
    },
  };
});

runGatewayContract("mock (text-only push)", async () => {
  const gateway = createMockGateway({
    kind: "push",
    type: "sms-like",
    capabilities: { interactiveActions: false, threads: false },
    messageLimit: 1600,
  });
  return {
    gateway,
    inject: async (m) => {
      await gateway.inject(m);
    },
    sent: async () => gateway.sent,
  };
});
