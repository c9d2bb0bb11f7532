// Servers on 127.0.0.1 and raw client sockets for the node-body tests, closed together after each
// test (closeAllConnections: a half-open socket would keep a server's close waiting).
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";

const servers: Server[] = [];
const sockets: Socket[] = [];

/** A server on 127.0.0.1 answering with `handle`; its port. */
export async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
  const s = createServer(handle);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  return (s.address() as AddressInfo).port;
}

/** A raw connection to `port`, connected. */
export async function open(port: number, allowHalfOpen = false): Promise<Socket> {
  const socket = connect({ port, host: "127.0.0.1", allowHalfOpen });
  sockets.push(socket);
  await once(socket, "connect");
  return socket;
}

/** Destroys every socket opened and closes every server started since the last call. */
export async function closeRig(): Promise<void> {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
}
