import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";

export interface McpSession {
  id: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  lastSeen: number;
  /** HTTP requests being handled right now. */
  requests: number;
  /** Tool calls running right now (an SSE response returns before its tool finishes). */
  toolCalls: number;
}

/**
 * Live sessions keyed by `mcp-session-id`. A session is idle when nothing is in flight and no
 * request arrived for `idleTimeoutMs`; idle sessions are closed by a periodic sweep and also
 * when a late request finds them, so an expired id always answers 404 (the client re-initializes).
 */
export class SessionRegistry {
  readonly #sessions = new Map<string, McpSession>();
  readonly #timer: NodeJS.Timeout;

  constructor(
    readonly idleTimeoutMs: number,
    readonly maxSessions: number,
  ) {
    const every = Math.min(60_000, Math.max(25, Math.floor(idleTimeoutMs / 2)));
    this.#timer = setInterval(() => void this.sweep(), every);
    // The sweep must never keep a process alive on its own.
    this.#timer.unref();
  }

  get size(): number {
    return this.#sessions.size;
  }

  add(session: McpSession): void {
    this.#sessions.set(session.id, session);
  }

  remove(id: string): void {
    this.#sessions.delete(id);
  }

  /** The live session, or undefined (unknown, or expired just now: then it is closed). */
  get(id: string): McpSession | undefined {
    const session = this.#sessions.get(id);
    if (session && this.#expired(session, Date.now())) {
      void this.#end(session);
      return undefined;
    }
    return session;
  }

  touch(session: McpSession): void {
    session.lastSeen = Date.now();
  }

  async sweep(): Promise<void> {
    const now = Date.now();
    const idle = [...this.#sessions.values()].filter((s) => this.#expired(s, now));
    await Promise.all(idle.map((s) => this.#end(s)));
  }

  async closeAll(): Promise<void> {
    clearInterval(this.#timer);
    const all = [...this.#sessions.values()];
    await Promise.all(all.map((s) => this.#end(s)));
  }

  #expired(session: McpSession, now: number): boolean {
    return session.requests === 0 && session.toolCalls === 0 && now - session.lastSeen > this.idleTimeoutMs;
  }

  async #end(session: McpSession): Promise<void> {
    this.#sessions.delete(session.id);
    // Server.close() closes the transport: open SSE streams end and pending requests are dropped.
    await session.server.close().catch(() => undefined);
  }
}
