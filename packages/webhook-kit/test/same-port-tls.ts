// One port on 127.0.0.1 answering both https and plain http, so a redirect can change the scheme
// alone (same host, same port: another origin by fetch's rule, the same `host`). A connection
// whose first byte is a TLS handshake record (0x16) goes to the https server, any other to the
// http one. The certificate is a throwaway self-signed one for IP 127.0.0.1, trusted by this
// process's fetch for the calling test only (tls.setDefaultCACertificates, Node >= 22.19).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, createServer as createTcpServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Duplex } from "node:stream";
import tls from "node:tls";
import { onTestFinished } from "vitest";

export interface SeenRequest {
  scheme: "https" | "http";
  url: string;
  authorization: string | undefined;
}

/** The server, closed (and the certificate untrusted again) when the calling test ends. */
export async function samePortTls(
  handler: (scheme: "https" | "http", req: IncomingMessage, res: ServerResponse) => void,
) {
  const { key, cert } = selfSigned();
  const seen: SeenRequest[] = [];
  const answer = (scheme: "https" | "http") => (req: IncomingMessage, res: ServerResponse) => {
    seen.push({ scheme, url: req.url ?? "", authorization: req.headers.authorization });
    handler(scheme, req, res);
  };
  const https = createHttpsServer({ key, cert }, answer("https"));
  const http = createHttpServer(answer("http"));
  const sockets = new Set<Socket>();
  const front = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.once("data", (first) =>
      (first[0] === 0x16 ? https : http).emit("connection", replay(socket, first)),
    );
  });
  const saved = tls.getCACertificates("default");
  tls.setDefaultCACertificates([...saved, cert]);
  onTestFinished(async () => {
    tls.setDefaultCACertificates(saved);
    // fetch keeps its connections alive: close them, or the server waits for the client to.
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((r) => front.close(() => r()));
  });
  await new Promise<void>((r) => front.listen(0, "127.0.0.1", r));
  const port = (front.address() as AddressInfo).port;
  return { https: `https://127.0.0.1:${port}`, http: `http://127.0.0.1:${port}`, seen };
}

/**
 * The socket as a stream that yields the byte already read first. A server handed the socket itself
 * reads from its native handle and never sees what was unshifted in JavaScript.
 */
function replay(socket: Socket, first: Buffer): Duplex {
  const stream = new Duplex({
    read: () => void socket.resume(),
    write: (chunk, _encoding, done) => void socket.write(chunk, done),
    final: (done) => void socket.end(done),
    destroy: (err, done) => {
      socket.destroy();
      done(err);
    },
  });
  stream.push(first);
  socket.on("data", (chunk) => {
    if (!stream.push(chunk)) socket.pause();
  });
  socket.on("end", () => stream.push(null));
  socket.on("error", (err) => stream.destroy(err));
  socket.on("close", () => stream.destroy());
  return stream;
}

/** A P-256 key and a certificate for IP 127.0.0.1 signed by itself (openssl, as tooling/pg-test makes its CA). */
function selfSigned(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), "agentsvc-tls-"));
  try {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
        "-keyout",
        "key.pem",
        "-out",
        "cert.pem",
      ],
      { cwd: dir, stdio: "pipe" },
    );
    return {
      key: readFileSync(join(dir, "key.pem"), "utf8"),
      cert: readFileSync(join(dir, "cert.pem"), "utf8"),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
