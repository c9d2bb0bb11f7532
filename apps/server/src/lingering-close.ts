// A response that closes the connection while the client is still sending (a 413 for a body past
// the limit) has to reach the client. Node destroys the socket as soon as such a response is
// flushed; with the rest of the body unread, the kernel answers the client's next bytes with a
// reset, and a reset that arrives before the client read the 413 throws the 413 away (the client
// sees "connection reset"). The fix web servers use (nginx's lingering close): send FIN, keep
// reading and discarding what still arrives for a bounded time, then close.
import type { Server } from "node:http";
import type { Socket } from "node:net";

/** How long a closing connection keeps reading (and discarding) before it is closed anyway. */
export const LINGER_MS = 2_000;

/** Every connection of `server` that Node would close after a response lingers first. */
export function lingerBeforeClose(server: Server, lingerMs = LINGER_MS): void {
  server.on("connection", (socket: Socket) => {
    // Node's http server ends a `Connection: close` response with `socket.destroySoon()`.
    socket.destroySoon = () => linger(socket, lingerMs);
  });
}

const lingering = new WeakSet<Socket>();

function linger(socket: Socket, lingerMs: number): void {
  if (socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  const timer = setTimeout(() => socket.destroy(), lingerMs);
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
  // The client closed its side: everything it sent is read, closing now sends no reset.
  socket.once("end", () => socket.destroy());
  // FIN once the response is flushed; reading goes on (the http server allows half-open sockets).
  socket.end();
  // The http parser reads the socket only while the request it feeds is read; read and discard
  // whatever the parser does not take.
  socket.resume();
}
