import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A provider fake's HTTP server on 127.0.0.1 (port 0): its `/v1` base URL and a close that drops open streams. */
export async function serveLocal(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<{ baseURL: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
