// A TCP relay on 127.0.0.1 in front of the test Dovecot that counts the connections it accepted and
// those still open (the TLS session passes through it untouched), and can reset them all.
import { createConnection, createServer, type Socket } from "node:net";

/** A relay to `port` counting the connections it accepted and those still open. */
export async function relay(port: number) {
  const open = new Set<Socket>();
  let accepted = 0;
  const server = createServer((client) => {
    accepted += 1;
    open.add(client);
    const upstream = createConnection({ host: "127.0.0.1", port });
    client.pipe(upstream).pipe(client);
    const end = () => {
      open.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    port: (server.address() as { port: number }).port,
    accepted: () => accepted,
    open: () => open.size,
    /** Ends every open connection with a TCP reset (as a dropped NAT mapping or a restarted proxy does). */
    reset: () => {
      for (const socket of open) socket.resetAndDestroy();
    },
    close: () => {
      for (const socket of open) socket.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
