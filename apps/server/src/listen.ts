import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import type { Project } from "@agentsvc/config-schema";
import pino from "pino";
import { createServer, type AgentServer, type ServerOptions } from "./compose.js";
import { lingerBeforeClose } from "./lingering-close.js";
import { assertSupportedNode } from "./node-version.js";

export interface ListenOptions extends ServerOptions {
  /** Default: `PORT`, else the project's `port`, else 3000. 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1; set 0.0.0.0 (HOST) to listen on every interface. */
  host?: string;
  /** How long shutdown waits for running turns. Default 10 s. */
  drainMs?: number;
  /**
   * Connections the kernel queues before the server accepts them. Default 4096 (Node's is 511);
   * Linux caps it at `net.core.somaxconn`. A burst past the queue is dropped and retried by
   * clients 1, 3, 7 … seconds later, so a service that takes thousands of streams at once wants
   * a deep one.
   */
  backlog?: number;
}

export const DEFAULT_BACKLOG = 4096;

export interface RunningServer extends AgentServer {
  url: string;
  port: number;
  /** Stops accepting connections, lets turns finish up to `drainMs`, closes stores. Idempotent. */
  shutdown(): Promise<void>;
}

export function resolvePort(project: Project, env: NodeJS.ProcessEnv, given?: number): number {
  if (given !== undefined) return given;
  const fromEnv = env.PORT ? Number(env.PORT) : undefined;
  if (fromEnv !== undefined && Number.isInteger(fromEnv) && fromEnv >= 0) return fromEnv;
  return project.config.port ?? 3000;
}

/** Builds the app for a project and listens on HTTP. */
export async function startServer(project: Project, options: ListenOptions = {}): Promise<RunningServer> {
  assertSupportedNode();
  const env = options.env ?? process.env;
  const logger = options.logger ?? pino();
  const host = options.host ?? env.HOST ?? "127.0.0.1";
  const composed = await createServer(project, { ...options, env, logger, bindHost: host });
  const port = resolvePort(project, env, options.port);
  let server: ReturnType<typeof createAdaptorServer>;
  try {
    server = await new Promise<ReturnType<typeof createAdaptorServer>>((resolve, reject) => {
      const s = createAdaptorServer({ fetch: composed.app.fetch, hostname: host });
      lingerBeforeClose(s as Server);
      s.once("error", reject);
      s.listen({ port, host, backlog: options.backlog ?? DEFAULT_BACKLOG }, () => resolve(s));
    });
  } catch (error) {
    // Nothing was served: release the stores and sessions so the process can exit.
    await composed.close(0);
    throw listenError(error as NodeJS.ErrnoException, host, port);
  }
  const actual = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${actual}`;
  let stopping: Promise<void> | undefined;
  return {
    ...composed,
    url,
    port: actual,
    shutdown() {
      stopping ??= (async () => {
        // Stop accepting first; open streams finish with their turns (bounded by drainMs).
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        await composed.close(options.drainMs ?? 10_000);
        if ("closeAllConnections" in server) server.closeAllConnections();
        await closed;
      })();
      return stopping;
    },
  };
}

/** A listen failure a person can act on: which port, and how to pick another. */
export function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  const how = "pick another with --port <n> or the PORT variable";
  const text =
    error.code === "EADDRINUSE"
      ? `port ${port} on ${host} is already in use by another program; ${how}`
      : error.code === "EACCES"
        ? `port ${port} on ${host} needs more privileges than this process has; ${how} (above 1023)`
        : error.code === "EADDRNOTAVAIL"
          ? `address ${host} is not an address of this machine; pick another with --host or the HOST variable`
          : undefined;
  return text ? Object.assign(new Error(text), { code: error.code }) : error;
}

/** SIGTERM/SIGINT run `shutdown` once; a second signal exits at once. */
export function shutdownOnSignals(server: RunningServer, log: (msg: string) => void = console.error): void {
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(130);
    signalled = true;
    log(`agentsvc: ${signal}: finishing running turns, then stopping`);
    server.shutdown().then(
      () => process.exit(0),
      (error: unknown) => {
        log(`agentsvc: shutdown failed: ${String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}
