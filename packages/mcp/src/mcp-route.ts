import { randomUUID } from "node:crypto";
import { type Context, Hono } from "hono";
import { keyMatches, presentedKey } from "./api-key.js";
import { isToolServerDefinition, type ToolServerDefinition } from "./define-tool-server.js";
import { jsonRpcError, readBoundedBody, refusedByHeaders } from "./http-replies.js";
import { sdkTransport, sdkTypes } from "./sdk.js";
import { type McpSession, SessionRegistry } from "./session-registry.js";
import { buildCatalog, createSessionServer } from "./session-server.js";

export interface McpRouteOptions {
  /** The tool server named by the exposure's `target`. */
  server: ToolServerDefinition;
  /** The exposure's `path`, e.g. "/mcp". The route answers on exactly this path (and with a trailing slash). */
  path: string;
  /**
   * Value of the exposure's `apiKeyEnvVar` when that key is set. `undefined` = no key gate.
   * An empty string (variable configured but unset) rejects every request.
   */
  apiKey?: string;
  /** Answer POSTs with one JSON body instead of an SSE stream. Default false (SSE, the SDK default). */
  jsonResponse?: boolean;
  /** Close a session after this long without requests or running tool calls. Default 30 minutes. */
  idleTimeoutMs?: number;
  /** New sessions beyond this many get 503. Default 1000. */
  maxSessions?: number;
  /** Largest POST body read, in bytes. Default 4 MiB (the SDK's own bound). */
  maxBodyBytes?: number;
  /**
   * Browser origins allowed to call (DNS-rebinding guard required by the MCP spec). Requests without
   * an `Origin` header (every non-browser client) pass; by default only same-origin requests do.
   */
  allowedOrigins?: string[];
  /**
   * Which host names a same-origin browser request may come from (DNS-rebinding guard: a rebound
   * page has a matching Host and Origin, both naming the attacker's domain). Default: loopback
   * names only (`localhost`, `127.0.0.1`, `::1`). The server passes its allowed-hosts list.
   */
  hostAllowed?: (hostname: string) => boolean;
  /** Transport-level problems (bad requests, broken streams), for logging. */
  onError?: (error: Error) => void;
}

export interface McpRoute {
  /** Hono app with the route registered at the full `path`: mount with `root.route("/", route.app)`. */
  app: Hono;
  path: string;
  /** Number of live sessions. */
  sessionCount(): number;
  /** Ends every session (open SSE streams close). The route answers 404 to their ids afterwards. */
  close(): Promise<void>;
}

const THIRTY_MINUTES = 30 * 60_000;

/** Serves a local tool server over MCP Streamable HTTP (the `exposes: mcp` entry). */
export function mcpRoute(options: McpRouteOptions): McpRoute {
  if (!isToolServerDefinition(options.server)) {
    throw new Error("mcpRoute: server: expected a defineToolServer(...) result (got something else)");
  }
  const path = normalizePath(options.path);
  const catalog = buildCatalog(options.server);
  const registry = new SessionRegistry(
    positive(options.idleTimeoutMs, THIRTY_MINUTES, "idleTimeoutMs"),
    positive(options.maxSessions, 1000, "maxSessions"),
  );
  const maxBody = positive(options.maxBodyBytes, 4 * 1024 * 1024, "maxBodyBytes");
  const hostAllowed = options.hostAllowed ?? ((name: string) => LOOPBACK.has(name));
  let closed = false;

  async function handle(c: Context): Promise<Response> {
    const req = c.req.raw;
    const origin = req.headers.get("origin");
    if (origin !== null && !originAllowed(origin, req, options.allowedOrigins, hostAllowed)) {
      return jsonRpcError(403, -32000, `Forbidden: origin ${JSON.stringify(origin)} is not allowed`, {
        code: "origin_not_allowed",
      });
    }
    if (options.apiKey !== undefined && !keyMatches(presentedKey(req.headers), options.apiKey)) {
      return jsonRpcError(
        401,
        -32000,
        "Unauthorized: send the API key in the X-API-Key header or as Authorization: Bearer <key>",
        { code: "api_key_required" },
        { "www-authenticate": 'Bearer realm="mcp"' },
      );
    }

    const sessionId = req.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const session = registry.get(sessionId);
      if (!session) {
        return jsonRpcError(
          404,
          -32001,
          "Session not found: it ended or expired; send a new initialize request",
          {
            code: "session_not_found",
          },
        );
      }
      // A POST's headers are checked and its body read here, within the route's limit (the
      // transport would read it itself, past that limit and without the drain), as for an
      // initialize (startSession); GET and DELETE go straight through.
      if (req.method === "POST") {
        const refused = refusedByHeaders(req, c.env);
        if (refused) return refused;
        return inSession(session, async () => {
          const read = await readMessage(req, c.env);
          if (read instanceof Response) return read;
          return session.transport.handleRequest(req, { parsedBody: read.message });
        });
      }
      return inSession(session, () => session.transport.handleRequest(req));
    }

    if (req.method === "GET" || req.method === "DELETE") {
      return jsonRpcError(400, -32000, "Bad Request: the Mcp-Session-Id header is required", {
        code: "session_id_required",
      });
    }
    if (req.method !== "POST") {
      return jsonRpcError(
        405,
        -32000,
        `Method ${req.method} not allowed`,
        { code: "method_not_allowed" },
        {
          allow: "GET, POST, DELETE",
        },
      );
    }
    return startSession(req, c.env);
  }

  async function startSession(req: Request, env: unknown): Promise<Response> {
    // Accept, then Content-Type, then the body: the SDK transport's order, and a session's POST's.
    const refused = refusedByHeaders(req, env);
    if (refused) return refused;
    const read = await readMessage(req, env);
    if (read instanceof Response) return read;
    const message = read.message;
    if (!sdkTypes().isInitializeRequest(message)) {
      return jsonRpcError(
        400,
        -32000,
        "Bad Request: no Mcp-Session-Id header; start a session with an initialize request first",
        { code: "session_id_required" },
      );
    }
    if (closed) {
      return jsonRpcError(503, -32000, "Service Unavailable: the MCP route is shutting down", {
        code: "closing",
      });
    }
    if (registry.size >= registry.maxSessions) {
      return jsonRpcError(
        503,
        -32000,
        `Service Unavailable: ${registry.maxSessions} sessions are open; try later`,
        {
          code: "too_many_sessions",
        },
      );
    }

    let session: McpSession | undefined;
    const transport = new (sdkTransport().WebStandardStreamableHTTPServerTransport)({
      sessionIdGenerator: randomUUID,
      enableJsonResponse: options.jsonResponse ?? false,
      onsessioninitialized: (id) => {
        if (session) {
          session.id = id;
          registry.add(session);
        }
      },
    });
    // Set before connect(): the SDK chains its own close handler after ours.
    transport.onclose = () => {
      if (session) registry.remove(session.id);
    };
    if (options.onError) transport.onerror = options.onError;
    const server = createSessionServer(catalog, {
      started: () => {
        if (session) session.toolCalls++;
      },
      ended: () => {
        if (session) {
          session.toolCalls--;
          registry.touch(session);
        }
      },
    });
    session = { id: "", transport, server, lastSeen: Date.now(), requests: 0, toolCalls: 0 };
    await server.connect(transport);
    const started = session;
    return inSession(started, () => transport.handleRequest(req, { parsedBody: message }));
  }

  /**
   * A POST's JSON-RPC message, read with the route's limit, or the answer instead: 413 past the
   * limit (the rest drained, then the connection closed), 400 for a body cut off before its end
   * (the client hung up: reported through onError) or one that is not JSON.
   */
  async function readMessage(req: Request, env: unknown): Promise<{ message: unknown } | Response> {
    const body = await readBoundedBody(req, maxBody, env);
    if (!body.ok && body.tooLarge) {
      // Close the connection, as every other 413 does (the rest of the body is drained first).
      return jsonRpcError(
        413,
        -32000,
        `Payload Too Large: the body exceeds ${maxBody} bytes`,
        { code: "body_too_large" },
        { connection: "close" },
      );
    }
    if (!body.ok) {
      options.onError?.(new Error(`mcp POST ${path}: the body could not be read (${body.cause})`));
      return jsonRpcError(400, -32000, `Bad Request: the body could not be read (${body.cause})`, {
        code: "body_unreadable",
      });
    }
    try {
      return { message: JSON.parse(body.text) };
    } catch {
      return jsonRpcError(400, -32700, "Parse error: the body is not valid JSON", { code: "invalid_json" });
    }
  }

  async function inSession(session: McpSession, run: () => Promise<Response>): Promise<Response> {
    session.requests++;
    registry.touch(session);
    try {
      return await run();
    } finally {
      session.requests--;
      registry.touch(session);
    }
  }

  const app = new Hono();
  app.all(path, handle);
  if (path !== "/") app.all(`${path}/`, handle);

  return {
    app,
    path,
    sessionCount: () => registry.size,
    async close() {
      closed = true;
      await registry.closeAll();
    },
  };
}

function normalizePath(path: string): string {
  if (typeof path !== "string" || !path.startsWith("/")) {
    throw new Error(`mcpRoute: path: expected a path starting with "/" (got ${JSON.stringify(path)})`);
  }
  return path.length > 1 ? path.replace(/\/+$/, "") : path;
}

function positive(value: number | undefined, fallback: number, key: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) {
    throw new Error(`mcpRoute: ${key}: expected a positive number (got ${String(value)})`);
  }
  return value;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "::1"]);

/**
 * The MCP transport spec requires validating Origin. Allowed: a listed origin, or the request's own
 * origin (Origin host equals Host) when its host name is one this server is meant to be reached by.
 */
function originAllowed(
  origin: string,
  req: Request,
  allowed: string[] | undefined,
  hostAllowed: (hostname: string) => boolean,
): boolean {
  if (allowed) return allowed.includes("*") || allowed.includes(origin);
  try {
    const host = req.headers.get("host") ?? new URL(req.url).host;
    const url = new URL(origin);
    return url.host === host && hostAllowed(url.hostname.replace(/^\[(.*)\]$/, "$1"));
  } catch {
    return false; // "null" and other opaque origins
  }
}
