// A callback receiver for the http gateway's replies (BENCH_CALLBACK=1): answers every POST 200
// once its body is read, in the bench's own process, so its CPU is neither the server's nor
// PostgreSQL's.
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface CallbackSink {
  url: string;
  received: () => number;
  close: () => Promise<void>;
}

export async function callbackSink(): Promise<CallbackSink> {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received++;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    received: () => received,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
