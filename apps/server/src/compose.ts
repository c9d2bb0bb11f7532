import { join } from "node:path";
import {
  type AgentDefinition,
  createSummarizer,
  InMemoryRunStore,
  type Memory,
  type ModelAttempt,
  type ResolvedModel,
  resolveModel,
  RunManager,
  type RunManagerApi,
  type ToolDefinition,
} from "@agentsvc/agent-core";
import type { ChatDb } from "@agentsvc/chat-store";
import {
  agentInfo,
  agentRoutes,
  allowedHostsGuard,
  defaultAllowedHosts,
  hostAllowed,
  directStreams,
} from "@agentsvc/agent-routes";
import type { Project, WebuiExposure } from "@agentsvc/config-schema";
import type { ToolServerDefinition } from "@agentsvc/mcp";
import { Hono } from "hono";
import pino, { type Logger } from "pino";
import { readEnv } from "./env.js";
import { AGENT_ROUTE_USER, wireGateways } from "./gateways.js";
import type { ServerSession } from "./idle-session.js";
import { healthRoute } from "./health.js";
import { probeRoutes } from "./probes.js";
import { MeteredRunManager } from "./metered-runs.js";
import { createMetrics, type ServerMetrics } from "./metrics.js";
import { meteredModel } from "./metered-model.js";
import { meteredStore } from "./metered-store.js";
import { createSpendMeter } from "./spend-meter.js";
import { meterRuns } from "./spend-runs.js";
import { reminderToolsOf, type SchedulePage, startSchedules } from "./schedules.js";
import { startTracing } from "./tracing.js";
import { transcriberOf } from "./transcription.js";
import { requestLog } from "./request-log.js";
import { mountFavicon, mountPage } from "./static-pages.js";
import { mountWebhooks } from "./webhooks.js";
import { clusterRuns } from "./cluster/run-control.js";
import { datasourceCoordination } from "./cluster/datasource-link.js";
import { StoreSet } from "./stores.js";
import { requireApiKeys } from "./api-keys.js";
import { installCommand } from "./install-command.js";
import { namingEntry } from "./entry-errors.js";
import { mountFileRoute } from "./file-route.js";
import { seedAtFirstRequest } from "./account-seeding.js";

export interface ServerOptions {
  /** Where `*EnvVar` values are read, once, here at start-up. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** Where pages are written and served from. Default `<root>/.agentsvc/build`. */
  buildDir?: string;
  /** May the default `cli` approval channel prompt on this process's terminal? Default: stdin is a TTY. */
  interactive?: boolean;
  /** The address the server binds; a specific one joins the allowed hosts. */
  bindHost?: string;
  /** Host names allowed besides loopback names, the bind host and the config's `allowedHosts`. */
  allowedHosts?: string[];
}

/** Loopback names, the bind host, the host of `publicBaseUrl`, the project's `allowedHosts` and any given here. */
export function allowedHostsOf(project: Project, options: ServerOptions): string[] {
  const publicBase = project.config.publicBaseUrl;
  return [
    ...defaultAllowedHosts(options.bindHost),
    // The name the service is reached at from outside (webhooks through a proxy or tunnel).
    ...(publicBase ? [new URL(publicBase).hostname] : []),
    ...(project.config.allowedHosts ?? []),
    ...(options.allowedHosts ?? []),
  ];
}

export interface GatewayRoute {
  name: string;
  type: string;
  /** Absent for gateways that reach their platform themselves (long poll, socket, IMAP, terminal). */
  webhookPath?: string;
}

export interface AgentServer {
  app: Hono;
  runs: RunManager;
  memory: Memory;
  /** The gateway session (a stand-in until it has work, for a project with no gateway: idle-session.ts). */
  session: ServerSession;
  /** Every registered gateway and the path its platform posts to (webhook gateways, `http` channels). */
  gateways: GatewayRoute[];
  /** Stops MCP sessions and remote tool connections, waits for running turns (bounded), closes stores. */
  close(drainMs?: number): Promise<void>;
}

function localToolServers(project: Project): Map<string, ToolServerDefinition> {
  return new Map(project.toolServers.map((s) => [s.name, s.definition as ToolServerDefinition]));
}

/** Composes every exposure of one project into a Hono app bound to its root agent. */
export async function createServer(project: Project, options: ServerOptions = {}): Promise<AgentServer> {
  const env = options.env ?? process.env;
  const logger = options.logger ?? pino();
  const buildDir = options.buildDir ?? join(project.root, ".agentsvc", "build");
  const agent = project.rootAgent.definition as AgentDefinition;
  // Models first: a missing API key fails here, before any store file or folder is created.
  const models = createModels(project, env);
  // An empty key variable must not leave a route open: refuse to start, before any store exists.
  requireApiKeys(project, env);
  const stores = new StoreSet(project, logger, env);
  const closers: (() => Promise<void> | void)[] = [];
  // The trace SDK loads only when the process environment (OTEL_*, which the exporter itself reads)
  // asks for an exporter.
  const tracing = await startTracing(process.env, logger.child({ name: "tracing" }));
  if (tracing) closers.push(() => tracing.flush());

  try {
    const primary = await stores.primary();
    // A project whose store is on PostgreSQL may run as several instances: they share the work
    // through the database (thread locks, one leader, announcements).
    const postgres =
      primary.dialect === "postgres" ? project.config.datasources[primary.datasource] : undefined;
    const coordination =
      postgres?.type === "postgres"
        ? await datasourceCoordination({
            name: primary.datasource,
            datasource: postgres,
            env,
            appRoot: project.root,
            source: project.configFile ?? "agentsvc.config",
            logger,
          })
        : undefined;
    if (coordination) closers.push(() => coordination.close());
    warnUnreadHeldCaps(project, primary.dialect === "postgres" ? primary.datasource : undefined, logger);
    // The MCP package (and its SDK) loads only for a project that serves or uses tool servers.
    const usesMcp =
      (agent.toolServers?.length ?? 0) > 0 || project.exposures.some((e) => e.exposes === "mcp");
    const mcp = usesMcp ? await import("@agentsvc/mcp") : undefined;
    const toolServers = mcp
      ? await mcp.resolveToolServers(agent.toolServers ?? [], {
          local: localToolServers(project),
          env,
          agentName: agent.name,
        })
      : { tools: [], close: () => {} };
    closers.push(() => toolServers.close());

    const memory = createMemory(agent, primary, models.summarize);
    // prom-client loads only for a project that declares `metrics`.
    const metrics: ServerMetrics | undefined = project.config.metrics
      ? await createMetrics(project.config.metrics, env, logger.child({ name: "metrics" }))
      : undefined;
    if (metrics) closers.push(() => metrics.close());
    const runOptions = {
      agent,
      model: metrics ? meteredModels(models.model, metrics) : models.model,
      memory,
      runStore: primary.runStore,
      // Stored files a model takes as file parts, and voice notes transcribed for entries with media.transcribe.
      blobs: primary.blobs,
      ...transcribeOf(project, primary.blobs, env),
      // The built-in reminder tools when the agent turns them on (`reminders`).
      tools: [...(toolServers.tools as ToolDefinition[]), ...reminderToolsOf(agent, primary)],
      env,
      logger: logger.child({ name: "runs" }),
      // Every attempt of a model call (retries, fallbacks), counted by outcome or error code.
      ...(metrics ? { onModelAttempt: (attempt: ModelAttempt) => metrics.observeModelAttempt(attempt) } : {}),
    };
    const runs = metrics
      ? new MeteredRunManager(runOptions, (handle, startedAt) => metrics.observeRun(handle, startedAt))
      : new RunManager(runOptions);
    // The cost ledger records every model call; budgets (when declared) are checked before each one.
    const spend = createSpendMeter({
      ledger: primary.usageLedger,
      prices: project.config.prices,
      budgets: project.config.budgets,
      logger: logger.child({ name: "spend" }),
      metrics,
    });
    meterRuns(runs, spend);
    // Before the stores close: the last calls' rows are written.
    closers.push(() => spend.flush());
    // Suspended runs checkpointed before a restart become resumable again.
    await runs.ready();
    // Agents other than the root agent that a chat page schedule names run on runs of their own.
    const otherRuns = await scheduledAgentRuns(project, primary, env, logger, spend);
    closers.push(async () => {
      for (const r of otherRuns.values()) await r.drain(2_000);
    });
    // Routes reach a run on whichever instance runs it (cancel, steer); a decision releases it elsewhere.
    const controls = coordination
      ? clusterRuns(runs, coordination, { logger: logger.child({ name: "cluster" }) })
      : undefined;
    if (controls) closers.push(() => controls.close());
    const gateways = await wireGateways({
      project,
      runs,
      db: metrics ? meteredStore(primary, metrics) : primary,
      ...(metrics ? { observer: metrics.observer } : {}),
      env,
      logger,
      interactive: options.interactive ?? process.stdin.isTTY === true,
      ...(coordination ? { coordination } : {}),
      // Schedule ticks and reminders go through the session.
      schedules: project.schedules.length > 0 || !!agent.reminders,
      ...(postgres?.type === "postgres" && postgres.maxHeldThreads !== undefined
        ? { maxHeldThreads: postgres.maxHeldThreads }
        : {}),
    });
    closers.push(() => gateways.session.stop(0));

    const app = new Hono();
    // Outermost: once every other middleware has set its headers, streams go straight to the socket.
    app.use(directStreams());
    if (metrics) app.use(metrics.middleware);
    if (tracing) app.use(tracing.middleware);
    app.use(requestLog(logger.child({ name: "http" })));
    // Probes and metrics answer whatever Host they are called by: an orchestrator or a scraper
    // reaches the instance by its own address, not by a name in allowedHosts.
    let accepting = true;
    app.route("/", probeRoutes({ session: gateways.session, store: primary, accepting: () => accepting }));
    if (metrics) {
      metrics.watch({ session: gateways.session, store: primary });
      metrics.mount(app);
    }
    // DNS-rebinding guard on every other route, before anything else answers.
    const allowedHosts = allowedHostsOf(project, options);
    const refusedHosts = new Set<string>();
    app.use(
      "*",
      allowedHostsGuard(allowedHosts, (host) => {
        if (refusedHosts.size < 100 && !refusedHosts.has(host)) {
          refusedHosts.add(host);
          logger.warn({ host, allowedHosts }, "request for a host not in allowedHosts refused (403)");
        }
      }),
    );
    // Before the exposures: a page or route mounted at `/` never answers for it.
    app.route("/", healthRoute(gateways.session));
    // Chat pages by entry name: a schedule may post into one of their users' conversations.
    const pages = new Map<string, SchedulePage>();
    // The user id each gateway's runs have on the same RunManager and memory (session-core's: the
    // registered name, a push gateway's type or a channel adapter's entry name, third-party ones
    // included). A page identity so named would read, write and clear their conversations.
    const gatewayUsers = gateways.gateways.map((g) => g.name);
    for (const exposure of project.exposures) {
      if (exposure.exposes === "agent") {
        const apiKey = exposure.apiKeyEnvVar ? readEnv(env, exposure.apiKeyEnvVar) : undefined;
        const resolveUser = () => AGENT_ROUTE_USER;
        app.route(
          exposure.path,
          agentRoutes({ runs, info: agentInfo(runs), apiKey, resolveUser, severalInstances: !!coordination }),
        );
      } else if (exposure.exposes === "mcp") {
        const server = localToolServers(project).get(exposure.target) as ToolServerDefinition;
        const apiKey = exposure.apiKeyEnvVar ? readEnv(env, exposure.apiKeyEnvVar) : undefined;
        const mcpLog = logger.child({ name: "mcp", path: exposure.path });
        const route = (mcp as typeof import("@agentsvc/mcp")).mcpRoute({
          server,
          path: exposure.path,
          apiKey,
          hostAllowed: (name) => hostAllowed(name, allowedHosts),
          // A body its client cut off, a request the transport refused: one line each.
          onError: (error) => mcpLog.warn(error.message),
        });
        closers.push(() => route.close());
        app.route("/", route.app);
      } else {
        const page = await mountWebui(app, exposure, {
          project,
          runs,
          controls: controls ?? runs,
          stores,
          env,
          logger,
          buildDir,
          closers,
          gatewayUsers,
        });
        pages.set(exposure.entryName, page);
      }
    }
    if (gateways.httpRoutes) app.route("/", gateways.httpRoutes);
    mountWebhooks(app, gateways.gateways, project.config.publicBaseUrl);
    if (gateways.files) mountFileRoute(app, gateways.files.urls, gateways.files.blobs);
    const routes: GatewayRoute[] = gateways.gateways.map((g) => {
      const webhookPath = g.webhooks?.length
        ? `/webhooks/${g.type}`
        : g.type === "http"
          ? `/gateways/${g.name}/events`
          : undefined;
      return webhookPath ? { name: g.name, type: g.type, webhookPath } : { name: g.name, type: g.type };
    });
    await metrics?.listen();
    // Gateways start last: replayed inbound messages may start turns right away.
    await gateways.session.start().catch((error: unknown) => {
      throw namingEntry(error, project);
    });
    // Schedules record their ticks through the session, so they start once it runs.
    const schedules = await startSchedules({
      project,
      session: gateways.session,
      store: primary,
      logger: logger.child({ name: "schedules" }),
      ...(metrics ? { observer: metrics.schedules } : {}),
      runs: (name) => (name === undefined || name === project.rootAgent.name ? runs : otherRuns.get(name)),
      pages,
    });
    closers.push(() => schedules?.stop());
    app.notFound((c) =>
      c.json({ success: false, error: { code: "not_found", message: "no such route" } }, 404),
    );

    return {
      app,
      runs,
      memory: runs.memory,
      session: gateways.session,
      gateways: routes,
      async close(drainMs = 10_000) {
        accepting = false;
        // No new ticks while the session drains.
        await schedules?.stop();
        // Running turns finish and commit first (bounded), then the session stops its gateways.
        await gateways.session.stop(drainMs);
        await runs.drain(drainMs);
        for (const close of closers.reverse()) await close();
        await stores.close();
      },
    };
  } catch (error) {
    for (const close of closers.reverse()) await close();
    await stores.close();
    throw error;
  }
}

/** The run manager's transcriber, when an entry transcribes voice notes. */
function transcribeOf(project: Project, blobs: ChatDb["blobs"], env: NodeJS.ProcessEnv) {
  const transcribe = transcriberOf(project, blobs, env);
  return transcribe ? { transcribe } : {};
}

/**
 * Runs of each non-root agent a chat page schedule names: its own model, database memory in the
 * primary store (the page's conversation), its own tools (not its tool servers), metered like the
 * root agent's. Suspended runs (approvals) are kept in memory only.
 */
async function scheduledAgentRuns(
  project: Project,
  primary: ChatDb,
  env: NodeJS.ProcessEnv,
  logger: Logger,
  spend: ReturnType<typeof createSpendMeter>,
): Promise<Map<string, RunManager>> {
  const out = new Map<string, RunManager>();
  const names = new Set(
    project.schedules
      .map((s) => s.agent)
      .filter((a): a is string => a !== undefined && a !== project.rootAgent.name),
  );
  for (const name of names) {
    const entry = project.agents.find((a) => a.name === name);
    if (!entry) continue;
    const def = entry.definition as AgentDefinition;
    const options = {
      env,
      root: project.root,
      installCommand: (pkg: string) => installCommand(project.root, pkg),
    };
    let model: ResolvedModel;
    try {
      model = resolveModel(def.model, options);
    } catch (error) {
      throw Object.assign(new Error(`${entry.file}: ${(error as Error).message}`), {
        code: (error as { code?: string }).code,
      });
    }
    const runs = new RunManager({
      agent: def,
      model,
      // Database memory always: the page shows the conversation from the store.
      memory: createMemory({ ...def, memory: { ...def.memory, type: "database" } }, primary, undefined),
      runStore: new InMemoryRunStore(),
      env,
      logger: logger.child({ name: "runs", agent: name }),
    });
    meterRuns(runs, spend);
    await runs.ready();
    out.set(name, runs);
  }
  return out;
}

/** The root agent's model and summarizer; their errors name the agent file. */
function createModels(project: Project, env: NodeJS.ProcessEnv) {
  const agent = project.rootAgent.definition as AgentDefinition;
  // Optional provider packages are installed in the project, like gateway adapters.
  const options = {
    env,
    root: project.root,
    installCommand: (pkg: string) => installCommand(project.root, pkg),
  };
  try {
    return {
      model: resolveModel(agent.model, options),
      // `window` memory (the RunManager's in-process window) never summarizes.
      summarize:
        agent.memory?.type === "window" ? undefined : createSummarizer(agent.memory, agent.model, options),
    };
  } catch (error) {
    throw Object.assign(new Error(`${project.rootAgent.file}: ${(error as Error).message}`), {
      code: (error as { code?: string }).code,
    });
  }
}

/** Every model of the agent (fallbacks too) timed and counted. */
function meteredModels(resolved: ResolvedModel, metrics: ServerMetrics): ResolvedModel {
  return {
    ...resolved,
    model: meteredModel(resolved.model, metrics),
    fallbacks: resolved.fallbacks.map((f) => meteredModels(f, metrics)),
  };
}

/** `memory.type` defaults to `database`: a service should not forget on restart. */
function createMemory(
  agent: AgentDefinition,
  db: ChatDb,
  summarize: ReturnType<typeof createSummarizer>,
): Memory | undefined {
  // `window` (or no database): the RunManager's in-process window memory.
  if (agent.memory?.type === "window") return undefined;
  return db.createMemory({
    summarize,
    canSummarize: summarize !== undefined,
    summaryThreshold: agent.memory?.summaryThreshold,
    maxMessages: agent.memory?.maxMessages,
    maxPromptTokens: agent.memory?.maxPromptTokens,
  });
}

interface WebuiContext {
  project: Project;
  runs: RunManager;
  /** What the page's run routes use: `runs`, or its cluster-wide view (several instances). */
  controls: RunManagerApi;
  stores: StoreSet;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  buildDir: string;
  /** Run at close, before the stores close. */
  closers: (() => Promise<void> | void)[];
  /** The gateways' user ids: refused as page identities (webui's `reservedUserIds`). */
  gatewayUsers: readonly string[];
}

async function mountWebui(app: Hono, entry: WebuiExposure, ctx: WebuiContext): Promise<SchedulePage> {
  // The chat API and the page renderer load only for a project with a webui entry.
  const [
    { agentInfoOf, apiPrefix, createChatUi, sharedUserIdOf },
    { FAVICON_SVG, pageSecurityHeaders, renderPage },
  ] = await Promise.all([import("@agentsvc/webui"), import("@agentsvc/webui-page")]);
  const db = await ctx.stores.forEntry(entry);
  if (entry.users) {
    const seeding = seedAtFirstRequest(db, entry.users, ctx.env, ctx.logger.child({ name: "webui-auth" }));
    app.use(`${apiPrefix(entry.path)}/*`, seeding.gate);
    ctx.closers.push(() => seeding.settled);
  }
  const apiKey = entry.apiKeyEnvVar ? readEnv(ctx.env, entry.apiKeyEnvVar) : undefined;
  const chatUi = createChatUi({
    entry,
    runs: ctx.controls,
    db,
    memory: ctx.runs.memory,
    runStore: (await ctx.stores.primary()).runStore,
    // Uploads live with the memory that refers to them, where the runs read files and transcribe.
    blobs: (await ctx.stores.primary()).blobs,
    severalInstances: ctx.controls !== ctx.runs,
    agent: agentInfoOf(ctx.runs.describe()),
    apiKey,
    reservedUserIds: ctx.gatewayUsers,
    logger: ctx.logger,
  });
  app.route(apiPrefix(entry.path), chatUi);
  // Built here, so a page that cannot be built (a broken install, a bad theme) still fails the
  // start; written to the build folder while the service starts and serves (static-pages.ts).
  const html = renderPage(entry, entry.themeCss ?? "");
  const pageCopies = mountPage(app, entry.path, ctx.buildDir, html, pageSecurityHeaders, (error, file) =>
    ctx.logger.error(
      { err: error, file },
      "could not write the built chat page; it is served from memory, and compressed again at each start",
    ),
  );
  ctx.closers.push(pageCopies);
  mountFavicon(app, FAVICON_SVG);
  return { db, sharedUserId: sharedUserIdOf(entry) };
}

/**
 * `maxHeldThreads` caps the threads an instance holds on the store's database; on any other
 * datasource it does nothing, which a user who set it should hear rather than find out under load.
 */
function warnUnreadHeldCaps(project: Project, store: string | undefined, logger: Logger): void {
  for (const [name, ds] of Object.entries(project.config.datasources)) {
    if (ds.type !== "postgres" || ds.maxHeldThreads === undefined || name === store) continue;
    logger.warn(
      { datasource: name, ...(store ? { store } : {}) },
      `datasources.${name}.maxHeldThreads has no effect: it is read on the store's datasource only (${store ? `"${store}"` : "the store is SQLite"})`,
    );
  }
}
