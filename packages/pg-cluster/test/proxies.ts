// TCP proxies on 127.0.0.1 in front of the test PostgreSQL, for faults a real server cannot be
// told to make: bytes held back and delivered together, connections refused or never answered.
import { type AddressInfo, connect, createServer, type Socket } from "node:net";

/**
 * A TCP proxy to `target` for one connection. While `hold` is set it keeps the server's bytes;
 * `release()` sends them in one write and, once the server has ended, ends the client side too.
 */
export async function holdingProxy(target: URL) {
  const held: Buffer[] = [];
  let client: Socket | undefined;
  const state = {
    hold: false,
    /** When set, `hold` turns on as the client's bytes that satisfy it pass (before they reach the server). */
    holdWhen: undefined as ((clientBytes: Buffer) => boolean) | undefined,
    serverEnded: false,
    port: 0,
    release() {
      state.hold = false;
      if (held.length) client?.write(Buffer.concat(held.splice(0)));
      if (state.serverEnded) client?.end();
    },
    close: () => new Promise<void>((r) => srv.close(() => r())),
  };
  const srv = createServer((socket) => {
    client = socket;
    const upstream = connect(Number(target.port), target.hostname);
    socket.on("data", (d) => {
      if (state.holdWhen?.(d)) state.hold = true;
      upstream.write(d);
    });
    socket.on("error", () => upstream.destroy());
    socket.on("close", () => upstream.destroy());
    upstream.on("data", (d) => (state.hold ? held.push(d) : socket.write(d)));
    upstream.on("error", () => undefined);
    upstream.on("close", () => {
      state.serverEnded = true;
      if (!state.hold) socket.end();
    });
  });
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  state.port = (srv.address() as AddressInfo).port;
  return state;
}

/**
 * A TCP proxy on 127.0.0.1 to the PostgreSQL of `databaseUrl`; `url` is the same database through
 * it. `refusing`: new connections are closed at once; `holding`: accepted and never answered;
 * `cut()` ends every connection open now.
 */
export async function switchableProxy(databaseUrl: string) {
  const target = new URL(databaseUrl);
  const open = new Set<Socket>();
  const state = {
    refusing: false,
    holding: false,
    /** Connections accepted (and not refused) so far. */
    connections: 0,
    url: "",
    cut() {
      for (const s of open) s.destroy();
      open.clear();
    },
    close: () => {
      state.cut();
      return new Promise<void>((r) => srv.close(() => r()));
    },
  };
  const srv = createServer((socket) => {
    if (state.refusing) {
      socket.destroy();
      return;
    }
    state.connections += 1;
    open.add(socket);
    socket.on("error", () => undefined);
    socket.on("close", () => open.delete(socket));
    if (state.holding) return;
    const upstream = connect(Number(target.port), target.hostname);
    open.add(upstream);
    socket.pipe(upstream);
    upstream.pipe(socket);
    upstream.on("error", () => socket.destroy());
    upstream.on("close", () => {
      open.delete(upstream);
      socket.destroy();
    });
    socket.on("close", () => upstream.destroy());
  });
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const proxied = new URL(databaseUrl);
  proxied.port = String((srv.address() as AddressInfo).port);
  state.url = proxied.href;
  return state;
}

/**
 * A TCP proxy on 127.0.0.1 to the PostgreSQL of `databaseUrl` that counts the statements its
 * connections send: each simple query ('Q') and each extended-protocol Sync ('S', one per
 * statement node-postgres sends), read from the frontend messages after the startup packet.
 */
export async function countingProxy(databaseUrl: string) {
  const target = new URL(databaseUrl);
  const state = { statements: 0, url: "", close: () => new Promise<void>((r) => srv.close(() => r())) };
  const srv = createServer((socket) => {
    const upstream = connect(Number(target.port), target.hostname);
    let pending = Buffer.alloc(0);
    let started = false;
    socket.on("data", (d) => {
      pending = Buffer.concat([pending, d]);
      for (;;) {
        // The startup packet has no type byte: its length comes first.
        const head = started ? 1 : 0;
        if (pending.length < head + 4) break;
        const size = head + pending.readUInt32BE(head);
        if (pending.length < size) break;
        const type = started ? String.fromCharCode(pending[0] as number) : "";
        if (type === "Q" || type === "S") state.statements += 1;
        started = true;
        pending = pending.subarray(size);
      }
      upstream.write(d);
    });
    socket.on("error", () => upstream.destroy());
    socket.on("close", () => upstream.destroy());
    upstream.on("data", (d) => socket.write(d));
    upstream.on("error", () => socket.destroy());
    upstream.on("close", () => socket.end());
  });
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const proxied = new URL(databaseUrl);
  proxied.port = String((srv.address() as AddressInfo).port);
  state.url = proxied.href;
  return state;
}
