import type { RunManager, SuspendedRun } from "@agentsvc/agent-core";
import type { ChatDb } from "@agentsvc/chat-store";
import {
  type ChannelEntry,
  type MediaConfig,
  mediaPolicyOf,
  type Project,
  type PushGatewayEntry,
  type SenderAccess,
} from "@agentsvc/config-schema";
import type {
  Gateway,
  GatewayEntryRef,
  GatewayFactory,
  GatewaySessionOptions,
  Coordination,
  SessionObserver,
  SenderAccessOptions,
  SessionBlobs,
} from "@agentsvc/session-core";
import { GatewayRegistry, loadAdapterPackage } from "@agentsvc/session-core/host";
import type { Hono } from "hono";
import type { Logger } from "pino";
import { adapterLoadError } from "./install-command.js";
import { fileUrlsFor } from "./file-route.js";
import { IdleSession, type ServerSession, sessionHasWork } from "./idle-session.js";
import type { FileUrls } from "@agentsvc/webhook-kit";

type Entry = ChannelEntry | PushGatewayEntry;
const CHANNEL_TYPES = new Set(["mock", "cli", "http"]);

/**
 * Every adapter package exports `createGateway: GatewayFactory<Entry>` (checked for each package by
 * test/adapter-exports.test.ts); options are the resolved entry (env var names, defaults) plus `name`
 * and `env`.
 */
function factoryOf(mod: Record<string, unknown>, type: string): GatewayFactory<Entry> {
  const factory = mod.createGateway;
  if (typeof factory !== "function") {
    throw new Error(`the adapter package for type "${type}" does not export createGateway`);
  }
  return factory as GatewayFactory<Entry>;
}

async function gatewayFor(entry: Entry, project: Project, env: NodeJS.ProcessEnv): Promise<Gateway> {
  // `cli` ships with the server (the default approval channel); every other type is installed in the
  // app: a built-in by its type, a third-party adapter by the package its entry named.
  const pkg = ("package" in entry && typeof entry.package === "string" && entry.package) || entry.type;
  const mod =
    entry.type === "cli"
      ? await import("@agentsvc/gateway-cli")
      : await loadAdapterPackage(pkg, { from: project.root }).catch((error: Error) => {
          throw new Error(`${entry.file}: type: ${adapterLoadError(error, pkg, project.root).message}`);
        });
  // appRoot: a relative file key (email's tlsCaFile) is read from the project, as doctor reads it.
  return factoryOf(mod, entry.type)({ ...entry, name: registryKeyOf(entry), env, appRoot: project.root });
}

/** Push-style gateways register under their type (spec gateways §2), channel adapters under their entry name. */
export function registryKeyOf(entry: Entry): string {
  return CHANNEL_TYPES.has(entry.type) ? entry.entryName : entry.type;
}

export interface GatewayWiring {
  session: ServerSession;
  /** Signed file URLs (a public base URL is configured): mount their route. */
  files?: { urls: FileUrls; blobs: SessionBlobs };
  /** The `http` channel adapters' routes (`/gateways/...`, `/interactions/...`), when any exists. */
  httpRoutes?: Hono;
  /** Every registered gateway (webhook gateways' routes are mounted from these). */
  gateways: Gateway[];
}

/**
 * The project's one gateway session, bound to the root agent. The default approval channel `cli` is
 * registered when the agent names none and stdin is a terminal; otherwise an agent-route run that
 * needs an approval no channel can ask for is rejected at once (logged), never left blocking. With
 * no gateway, no schedule, one instance and nothing in the store for it, a stand-in that makes the
 * session when work comes (idle-session.ts).
 */
export async function wireGateways(input: {
  project: Project;
  runs: RunManager;
  db: ChatDb;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  interactive: boolean;
  /** Several instances over one PostgreSQL store. */
  coordination?: Coordination;
  /** The store datasource's `maxHeldThreads` (with `coordination`). */
  maxHeldThreads?: number;
  /** The metrics' counters of inbound messages and sends. */
  observer?: SessionObserver;
  /** The project has schedules or reminders: their ticks go through the session. */
  schedules?: boolean;
}): Promise<GatewayWiring> {
  const { project, runs, db, env, logger } = input;
  const registry = new GatewayRegistry(logger.child({ name: "gateway-registry" }));
  const entries: Entry[] = [...project.channels, ...project.pushGateways];
  const refs: GatewayEntryRef[] = [];
  const http: Gateway[] = [];
  for (const entry of entries) {
    const gateway = await gatewayFor(entry, project, env);
    registry.register(gateway);
    refs.push({
      name: gateway.name,
      type: entry.type,
      file: entry.file,
      ...(entry.approvalDestination ? { approvalDestination: entry.approvalDestination } : {}),
      ...(entry.approvers ? { approvers: entry.approvers } : {}),
      ...(entry.streaming !== undefined ? { streaming: entry.streaming } : {}),
      ...(entry.streamIntervalMs !== undefined ? { streamIntervalMs: entry.streamIntervalMs } : {}),
      ...accessOf(entry),
      // What an attachment the entry does not take in gets (no block: a short answer; WhatsApp: nothing).
      media: mediaOptionsOf(entry),
    });
    if (entry.type === "http") http.push(gateway);
  }
  const agent = runs.agent;
  const channel = agent.approvals?.channel ?? "cli";
  if (channel === "cli" && !registry.has("cli") && input.interactive)
    registry.register((await import("@agentsvc/gateway-cli")).createCliGateway());

  // Webui runs are answered in the page (/pending, /resume); only gateway and agent-route runs go to the session.
  const ownsRun = (run: SuspendedRun) =>
    run.options.origin !== undefined || run.options.userId === AGENT_ROUTE_USER;
  const files = fileUrlsFor(project.config.publicBaseUrl, env);
  const options: GatewaySessionOptions & { store: ChatDb } = {
    runs,
    store: db,
    ...(files ? { outbox: { fileUrl: (file) => files.sign(file) } } : {}),
    registry,
    agent,
    entries: refs,
    loggers: { root: logger },
    env,
    subscribeSuspensions: false,
    ownsRun,
    ...(project.config.publicBaseUrl ? { publicBaseUrl: project.config.publicBaseUrl } : {}),
    ...(input.coordination ? { coordination: input.coordination } : {}),
    ...heldCapOf(input.maxHeldThreads, env),
    ...(input.observer ? { observer: input.observer } : {}),
  };
  const idle =
    registry.list().length === 0 &&
    !input.schedules &&
    !input.coordination &&
    !(await sessionHasWork(db, runs, ownsRun));
  const session: ServerSession = idle
    ? new IdleSession(options)
    : (await import("@agentsvc/session-core")).createGatewaySession(options);
  runs.onSuspended((run, pending) => {
    // Not awaited by the run manager: a failure (the stand-in's real session failing to start, a
    // store error) is logged here, not left as an unhandled rejection that ends the process.
    if (ownsRun(run))
      session.handleSuspension(run, pending).catch((err: unknown) => {
        logger.error(
          { err, threadId: run.options.threadId },
          "could not hand a suspended run's approval to the gateway session",
        );
      });
  });

  let httpRoutes: Hono | undefined;
  if (http.length > 0) {
    const mod = await loadAdapterPackage("http", { from: project.root });
    const handler = mod.createHttpGatewayHandler as (gateways: Gateway[]) => Hono;
    httpRoutes = handler(http);
  }
  const gateways = registry.list();
  const wiring: GatewayWiring = httpRoutes ? { session, httpRoutes, gateways } : { session, gateways };
  return files ? { ...wiring, files: { urls: files, blobs: db.blobs } } : wiring;
}

/**
 * The config's cap on held threads, unless AGENTSVC_MAX_HELD_THREADS is set: the variable wins (as
 * PORT does over `port`), so one instance is changed without editing the config every instance
 * shares, and deployments that set it before the key existed keep their cap. The session reads it.
 */
function heldCapOf(fromConfig: number | undefined, env: NodeJS.ProcessEnv): { maxHeldThreads?: number } {
  // An empty variable counts as unset, as the session reads it.
  if (fromConfig === undefined || env.AGENTSVC_MAX_HELD_THREADS) return {};
  return { maxHeldThreads: fromConfig };
}

/** The identity of runs started through an `exposes: agent` route (no sign-in there). */
export const AGENT_ROUTE_USER = "anonymous";

function mediaOptionsOf(entry: Entry): {
  unsupported: "reply" | "ignore";
  maxBytes?: number;
  showTranscript: boolean;
} {
  const policy = mediaPolicyOf(entry as { type: string; media?: MediaConfig });
  return {
    unsupported: policy.unsupported,
    ...(policy.maxBytes > 0 ? { maxBytes: policy.maxBytes } : {}),
    showTranscript: policy.showTranscript ?? true,
  };
}

/** The sender access keys of a push gateway entry (channel entries have none: anyone may write). */
function accessOf(entry: Entry): { access?: SenderAccessOptions } {
  if (!("dmPolicy" in entry || "groupPolicy" in entry || "rateLimit" in entry || "gatewayRateLimit" in entry))
    return {};
  const e = entry as SenderAccess;
  return {
    access: {
      ...(e.dmPolicy ? { dmPolicy: e.dmPolicy } : {}),
      ...(e.allowFrom ? { allowFrom: e.allowFrom } : {}),
      ...(e.groupPolicy ? { groupPolicy: e.groupPolicy } : {}),
      ...(e.groupAllowFrom ? { groupAllowFrom: e.groupAllowFrom } : {}),
      ...(e.pairingCodeTtlSeconds !== undefined ? { pairingCodeTtlSeconds: e.pairingCodeTtlSeconds } : {}),
      ...(e.refusalReply !== undefined ? { refusalReply: e.refusalReply } : {}),
      ...(e.rateLimit ? { rateLimit: e.rateLimit } : {}),
      ...(e.gatewayRateLimit ? { gatewayRateLimit: e.gatewayRateLimit } : {}),
    },
  };
}
