import type { Memory, RunManagerApi, RunStore } from "@agentsvc/agent-core";
import { type Context, Hono } from "hono";
import pino, { type Logger } from "pino";
import { apiKeyGate } from "./api-key.js";
import { checkBodyHeaders } from "./body.js";
import type { CookieSettings } from "./cookies.js";
import { crossSiteGuard } from "./csrf.js";
import { fail, toErrorResponse } from "./errors.js";
import { defaultIdentityResolver, sharedUserIdOf } from "./identity.js";
import { agentTurnRoutes } from "./routes/agent.js";
import { authRoutes } from "./routes/auth.js";
import { conversationRoutes } from "./routes/conversations.js";
import { fileRoutes, UploadIndex } from "./routes/files.js";
import { memoryRoutes } from "./routes/memory.js";
import { healthRoute, metaRoutes } from "./routes/meta.js";
import { preferenceRoutes } from "./routes/preferences.js";
import { reservedAccounts, reservedUserIds } from "./reserved-identity.js";
import { resumeRoute } from "./routes/resume.js";
import { runControlRoutes } from "./routes/runs.js";
import { storeGuard, storeUnavailable } from "./store-guard.js";
import type { BlobStore, ChatDb } from "@agentsvc/chat-store";
import type { AgentInfo, ChatUiEntry, HonoEnv, IdentityResolver } from "./types.js";

export interface ChatUiOptions {
  /** The resolved webui exposure (config-schema); `path`, `apiKeyEnvVar` and `users` are read. */
  entry: ChatUiEntry;
  runs: RunManagerApi;
  /** The entry's store: conversation index, preferences, accounts, sessions, sign-in throttle. */
  db: ChatDb;
  /** The agent's memory: the same instance the RunManager writes to. */
  memory: Memory;
  /** Where the RunManager checkpoints suspended runs (default `db.runStore`); `/clear` and delete consult it. */
  runStore?: RunStore;
  /**
   * Where uploads are stored and read back (default `db.blobs`): the store the RunManager reads
   * files from (its `blobs`, the transcriber's), so an entry with a database of its own still
   * gives the model its files.
   */
  blobs?: BlobStore;
  agent: AgentInfo;
  /** The API key's value (read at start-up from `entry.apiKeyEnvVar`); defaults to `process.env[entry.apiKeyEnvVar]`. */
  apiKey?: string;
  /** Replaces the built-in identity resolution; see the README. */
  resolveIdentity?: IdentityResolver;
  /** Sign-in events go to a child logger named `webui-auth`. */
  logger?: Logger;
  /** Extra origins allowed on state-changing requests besides the request's own host. */
  allowedOrigins?: string[];
  /** Secure flag of the session cookie; default `"auto"` (set over https). */
  secureCookies?: boolean | "auto";
  /** The client address for sign-in throttling; default the socket's remote address (@hono/node-server). */
  clientAddress?: (c: Context) => string;
  /** Several instances share the store: a stream reconnect to the wrong one answers 421 (sticky sessions). */
  severalInstances?: boolean;
  /**
   * User ids the service's other surfaces run as on the same RunManager and memory beyond the
   * built-in ones (a third-party adapter's type, each channel adapter's entry name); an identity
   * resolving to one of them or to a built-in one (`anonymous`, `shared`, `shared:<entry>`, a
   * built-in gateway type) is refused (403 `identity_reserved`).
   */
  reservedUserIds?: readonly string[];
}

function socketAddress(c: Context): string {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress ?? "unknown";
}

function describeEntry(entry: ChatUiEntry): string {
  return entry.file ?? (entry.entryName ? `gateways/${entry.entryName}` : `webui entry at ${entry.path}`);
}

/** The API key in force, or undefined when the entry sets none. Fails loudly on a configured but empty key. */
function resolveApiKey(entry: ChatUiEntry, given: string | undefined): string | undefined {
  if (!entry.apiKeyEnvVar) return given || undefined;
  const value = given ?? process.env[entry.apiKeyEnvVar];
  if (!value) {
    throw new Error(
      `${describeEntry(entry)}: apiKeyEnvVar: expected environment variable ${entry.apiKeyEnvVar} to hold the API key, but it is unset or empty`,
    );
  }
  return value;
}

/** `<path>` + `/api`, with exactly one slash between segments. */
export function apiPrefix(path: string): string {
  const trimmed = `/${path}`.replace(/\/+/g, "/").replace(/\/$/, "");
  return `${trimmed}/api`;
}

/**
 * ChatUi: the Hono app serving the webui API. Its routes are relative to `<path>/api`; mount it with
 * `server.route(apiPrefix(entry.path), createChatUi(...))`.
 */
export function createChatUi(options: ChatUiOptions): Hono<HonoEnv> {
  const { entry, runs, db, memory, agent } = options;
  const logger = options.logger ? options.logger.child({ name: "webui-auth" }) : pino({ name: "webui-auth" });
  const apiKey = resolveApiKey(entry, options.apiKey);
  const signInEnabled = Array.isArray(entry.users);
  const resolveIdentity =
    options.resolveIdentity ?? defaultIdentityResolver(db, signInEnabled, sharedUserIdOf(entry));
  const cookie: CookieSettings = { path: apiPrefix(entry.path), secure: options.secureCookies ?? "auto" };
  const reserved = reservedUserIds(sharedUserIdOf(entry), options.reservedUserIds);
  for (const name of reservedAccounts(entry.users, reserved))
    logger.error(
      { username: name },
      `${describeEntry(entry)}: users: the account "${name}" has the name another surface of this service runs as (the agent route, a gateway or an open workspace), so every route behind the identity gate refuses it (403 identity_reserved); rename it`,
    );

  const app = new Hono<HonoEnv>();
  app.onError((err, c) => {
    // A lock met mid-request (after the guard's probe): 503, and later requests probe first.
    if (db.health.noteFailure(err)) return storeUnavailable(c, db.health.retryAfterMs);
    const { status, body, unexpected } = toErrorResponse(err);
    if (unexpected) logger.error({ err, path: c.req.path }, "unexpected error in ChatUi");
    return c.json(body, status as 400);
  });
  app.notFound((c) => fail(c, 404, "not_found", `no route ${c.req.method} ${c.req.path}`));

  // Gates, in order: API key, cross-site refusal, body headers (413/415), store reachable, then identity.
  if (apiKey !== undefined) app.use("*", apiKeyGate(apiKey));
  app.use("*", crossSiteGuard(options.allowedOrigins));
  // An upload's body is the file itself: its own route checks its size and type as it streams.
  const uploadPath = `${apiPrefix(entry.path)}/files`;
  app.use("*", async (c, next) => {
    const upload = c.req.method === "POST" && c.req.path === uploadPath;
    if (c.req.method !== "GET" && c.req.method !== "HEAD" && !upload) checkBodyHeaders(c);
    await next();
  });

  app.use("*", storeGuard(db.health));

  app.route("/", healthRoute(db.health));
  app.route(
    "/",
    authRoutes({
      db,
      signInEnabled,
      reportUser: signInEnabled || options.resolveIdentity !== undefined,
      resolveIdentity,
      cookie,
      clientAddress: options.clientAddress ?? socketAddress,
      logger,
    }),
  );

  // Everything below needs an identity: the single place it is resolved for a request.
  app.use("*", async (c, next) => {
    const identity = await resolveIdentity(c);
    if (!identity || typeof identity.userId !== "string" || identity.userId === "") {
      return fail(c, 401, "sign_in_required", "sign in first (POST /auth/login)");
    }
    // Another surface's user: its conversations and suspended runs are not the page's to open.
    if (reserved(identity.userId)) {
      return fail(
        c,
        403,
        "identity_reserved",
        `the identity "${identity.userId}" is one another surface of this service (the agent route, a gateway or an open workspace) runs as; it cannot use the chat page`,
      );
    }
    c.set("identity", identity);
    await next();
  });

  const runStore = options.runStore ?? db.runStore;
  app.route("/", metaRoutes({ agent, memory, signInEnabled, apiKeyRequired: apiKey !== undefined }));
  const blobs = options.blobs ?? db.blobs;
  const uploads = new UploadIndex(blobs, `webui:${entry.entryName ?? entry.path}`);
  app.route(
    "/",
    agentTurnRoutes({ runs, db, logger, uploads, severalInstances: options.severalInstances === true }),
  );
  app.route("/", resumeRoute(runs));
  app.route("/", runControlRoutes(runs));
  app.route(
    "/",
    memoryRoutes({
      db,
      memory,
      runStore,
      canCompact: agent.canCompact,
      filesBase: `${apiPrefix(entry.path)}/files`,
      showTranscript: entry.media?.showTranscript !== false,
    }),
  );
  app.route("/", conversationRoutes({ db, memory, runStore }));
  app.route("/", preferenceRoutes(db));
  app.route("/", fileRoutes({ blobs, media: entry.media }, uploads));
  // Explicit catch-all: a mounted sub-app's notFound is not consulted by the parent app.
  app.all("*", (c) => fail(c, 404, "not_found", `no route ${c.req.method} ${c.req.path}`));
  return app;
}
