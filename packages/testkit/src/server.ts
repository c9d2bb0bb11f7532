// What every fake shares: an HTTP server on 127.0.0.1 at a free port, closed with its connections.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 (a free port unless given) and serves `handler`. */
export async function listenLocal(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  port = 0,
): Promise<FakeServer> {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}`,
    port: actual,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
