import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { runGatewayContract } from "@agentsvc/session-core/testing";
import { createHttpGateway, createHttpGatewayHandler, type HttpGateway } from "../src/index.js";
import { signed } from "./client.js";

const secret = "contract-secret";

/** The platform side: a client that posts signed events and pulls the outbox; a callback receiver that can refuse. */
runGatewayContract("http", async () => {
  let current: HttpGateway | undefined;
  let app: ReturnType<typeof createHttpGatewayHandler> | undefined;
  const failures: number[] = [];
  const received: { thread: string; text: string; key: string }[] = [];
  // The callback receiver stands for the client's own server; the harness counts what it accepted.
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const status = failures.shift();
      if (status) {
        res.writeHead(status, status === 429 ? { "retry-after": "0" } : {}).end();
        return;
      }
      const msg = JSON.parse(Buffer.concat(chunks).toString()) as {
        thread: string;
        text: string;
        idempotencyKey: string;
      };
      // The client deduplicates on the idempotency key, as the README tells it to.
      if (!received.some((r) => r.key === msg.idempotencyKey))
        received.push({ thread: msg.thread, text: msg.text, key: msg.idempotencyKey });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
  const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const front = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const response = await (app as NonNullable<typeof app>).fetch(
      new Request(`http://127.0.0.1${req.url}`, {
        method: req.method,
        headers: req.headers as Record<string, string>,
        ...(body ? { body } : {}),
      }),
    );
    res
      .writeHead(response.status, Object.fromEntries(response.headers))
      .end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((r) => front.listen(0, "127.0.0.1", () => r()));
  const base = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  return {
    gateway: () => {
      current = createHttpGateway({
        name: "hooks",
        secretEnvVar: "HOOKS_SECRET",
        env: { HOOKS_SECRET: secret },
        callbackUrl,
      });
      app = createHttpGatewayHandler([current]);
      return current;
    },
    inject: async (m) => {
      const res = await signed(base, "POST", "/gateways/hooks/events", {
        secret,
        body: { id: m.id, thread: m.thread, text: m.text },
      });
      if (res.status !== 202 && res.status !== 200)
        throw new Error(`event refused: ${res.status} ${await res.text()}`);
    },
    sent: async () => received.map((r) => ({ thread: r.thread, text: r.text })),
    choose: async (request, decision) => {
      // The client can only decide a request it was shown.
      const shown = await signed(base, "GET", `/gateways/hooks/threads/${request.thread}/messages`, {
        secret,
      });
      const messages = ((await shown.json()) as { messages: { requestId?: string }[] }).messages;
      if (!messages.some((m) => m.requestId === request.requestId))
        throw new Error(`no request ${request.requestId} shown`);
      const res = await signed(base, "POST", `/interactions/${request.requestId}/decisions`, {
        secret,
        body: { decision },
      });
      if (!res.ok) throw new Error(`decision refused: ${res.status} ${await res.text()}`);
    },
    failNext: (status) => failures.push(status),
    close: async () => {
      front.closeAllConnections();
      receiver.closeAllConnections();
      await Promise.all([new Promise((r) => front.close(r)), new Promise((r) => receiver.close(r))]);
    },
  };
});
