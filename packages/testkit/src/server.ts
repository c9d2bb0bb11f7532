// What every fake shares: an HTTP server on 127.0.0.1 at a free port, closed with its connections;
// and a free port for the tests whose server is told its port before it starts.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, createServer as createTcpServer } from "node:net";

export interface FakeServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1 (a free port unless given) and serves `handler`. Idle keep-alive connections
 * are the client's to close (all of them are closed at `close()`).
 */
export async function listenLocal(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  port = 0,
): Promise<FakeServer> {
  const server = createServer(handler);
  // No idle timeout: Node's (5 s, +1 s) runs on the wall clock, a fetch client's (undici: the
  // server's hint less 2 s) in ticks of its own timer, so after an event loop stalled for seconds
  // (a big upload, a loaded machine) the client sent its next request on a connection this server
  // had just closed (ECONNRESET: FakeTranscriptions, 5e781d82).
  server.keepAliveTimeout = 0;
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

/**
 * A TCP port on 127.0.0.1 nothing listens on now, for a server that must be told its port before it
 * starts (a config, a child process). Another process may take it before that server binds it.
 */
export async function freePort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
