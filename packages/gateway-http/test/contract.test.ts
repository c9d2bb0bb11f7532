import { runGatewayContract } from "@agentsvc/session-core/testing";
import { createHttpGateway, createHttpGatewayHandler } from "../src/index.js";
import { listen, signed } from "./client.js";

const secret = "contract-secret";

runGatewayContract("http", async () => {
  const gateway = createHttpGateway({
    name: "hooks",
    secretEnvVar: "HOOKS_SECRET",
    env: { HOOKS_SECRET: secret },
  });
  const server = await listen(createHttpGatewayHandler([gateway]));
  return {
    gateway,
    inject: async (m) => {
      const res = await signed(server.base, "POST", "/gateways/hooks/events", { secret, body: m });
      if (res.status !== 202 && res.status !== 200)
        throw new Error(`event refused: ${res.status} ${await res.text()}`);
    },
    sent: async () => {
      const res = await signed(server.base, "GET", "/gateways/hooks/threads/t-1/messages", { secret });
      const body = (await res.json()) as { messages: { thread: string; text: string }[] };
      return body.messages.map((m) => ({ thread: m.thread, text: m.text }));
    },
    choose: async (request, decision) => {
      const res = await signed(server.base, "POST", `/interactions/${request.requestId}/decisions`, {
        secret,
        body: { decision },
      });
      if (!res.ok) throw new Error(`decision refused: ${res.status} ${await res.text()}`);
    },
    close: () => server.close(),
  };
});
