// The Bot API calls on a kept-alive socket its server closes as the call goes out (adapter-kit's
// http-transport-stale-socket test makes the race land the same way: the call is sent from the server
// socket's keepAliveTimeout event, after Node's own close). getUpdates, getMe and getFile are reads
// (https://core.telegram.org/bots/api#getupdates: the same offset hands out the same updates), sent
// again; sendMessage may have reached Telegram and is the outbox's to retry.
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { PlatformCallError } from "@agentsvc/adapter-kit";
import { afterEach, expect, it } from "vitest";
import { BotApi } from "../src/api.js";

let server: Server;
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

it("getUpdates and getFile are sent again on a new connection; sendMessage fails as a dropped connection", async () => {
  const methods: string[] = [];
  server = createServer((req, res) => {
    methods.push(req.url?.split("/").pop() ?? "");
    req.resume();
    // No `Keep-Alive: timeout` hint (an explicit Connection header): the close comes unannounced.
    req.on("end", () =>
      res
        .writeHead(200, { "content-type": "application/json", connection: "keep-alive" })
        .end('{"ok":true,"result":[]}'),
    );
  });
  server.keepAliveTimeout = 200;
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const idleClosed = () =>
    new Promise<void>((resolve) =>
      server.once("connection", (socket: Socket) => socket.once("timeout", () => resolve())),
    );
  const api = new BotApi(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, "1:x", 5_000);
  let closed = idleClosed();
  await api.call("getMe", {});
  for (const method of ["getUpdates", "getFile"]) {
    await closed;
    closed = idleClosed();
    expect(await api.call(method, {})).toEqual([]);
  }
  await closed;
  const failed = await api.call("sendMessage", { chat_id: 1, text: "hi" }).catch((e: unknown) => e);
  expect(failed).toBeInstanceOf(PlatformCallError);
  expect((failed as PlatformCallError).facts).toMatchObject({ network: true });
  expect(methods).toEqual(["getMe", "getUpdates", "getFile"]);
});
