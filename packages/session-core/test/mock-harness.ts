// A contract harness over the mock gateway: one platform fake behind every instance it builds.
import type { Gateway } from "../src/index.js";
import type { GatewayHarness, MockGateway } from "../src/testing/index.js";

/** A harness over one platform fake shared by every gateway instance it builds (restarts). */
export function mockHarness(build: () => MockGateway): GatewayHarness {
  const instances: MockGateway[] = [];
  let current: MockGateway | undefined;
  const pendingFailures: (429 | 500)[] = [];
  return {
    gateway: () => {
      current = build();
      current.failures.push(...pendingFailures.splice(0).map((status) => ({ status })));
      instances.push(current);
      return current as Gateway;
    },
    inject: async (m) => {
      if (!current) throw new Error("no gateway");
      await current.inject({ id: m.id, thread: m.thread, text: m.text, author: m.author });
    },
    sent: async () => instances.flatMap((g) => g.sent),
    choose: async (request, decision, author) => {
      // A user can only press a button the platform shows.
      if (!instances.some((g) => g.decisionRequests.some((r) => r.requestId === request.requestId)))
        throw new Error(`the platform shows no request ${request.requestId}`);
      const result = await current?.decide(request.requestId, decision, author);
      if (!result?.ok) throw new Error(`decision refused: ${JSON.stringify(result)}`);
    },
    failNext: (status) => {
      current?.failures.push(status === 429 ? { status, retryAfterMs: 50 } : { status });
    },
  };
}
