import {
  AgentsvcError,
  type AttachmentRef,
  mintThreadId,
  type RunHandle,
  type RunManagerApi,
  type TurnResult,
} from "@agentsvc/agent-core";
import type { ServerResponse } from "node:http";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import {
  batchInputs,
  conversationIdOf,
  DEFAULT_BODY_LIMIT,
  inputBesideFiles,
  optionalThreadId,
  readJsonObject,
  requiredInput,
} from "./body.js";
import { errorResponse, knownError } from "./errors.js";
import { type DisconnectCancel, disconnectCancel } from "./disconnect-cancel.js";
import { streamRun } from "./sse.js";
import { withoutPrefix } from "./thread-scope.js";
import {
  ending,
  failedStatus,
  type PublicTurnError,
  publicError,
  retryAfterSeconds,
} from "./turn-failure.js";

/**
 * Who every caller is without a `resolveUser`: the agent route's one user. Memory and runs are keyed
 * by user id, so another surface must never hand this id to one of its own users (the webui refuses it).
 */
export const DEFAULT_USER_ID = "anonymous";

export interface TurnContext {
  userId: string;
  conversationId: string;
}

/** The `/info` body without `success`. */
export interface AgentInfoBody {
  agentName: string;
  modelName: string;
  demoModel: boolean;
  counts: { memories: number; tools: number };
  capabilities: Record<string, boolean>;
}

export interface AgentHandlerOptions {
  runs: RunManagerApi;
  /** The `/info` body (without `success`), for the caller's identity. */
  info?: (c: Context, user: TurnContext) => AgentInfoBody | Promise<AgentInfoBody>;
  /** Server-side identity. Default: everyone is `DEFAULT_USER_ID` (`"anonymous"`). Never read from a body. */
  resolveUser?: (c: Context) => string | Promise<string>;
  /** The conversation of a request that names none. Default: `"default"` for everyone. */
  defaultConversation?: (userId: string) => string;
  /** Runs before every turn (each turn of a batch); throw an AgentsvcError (403/409) to refuse it. */
  beforeTurn?: (c: Context, turn: TurnContext) => void | Promise<void>;
  /** Runs once the turn is persisted, before the response or stream ends. */
  afterTurn?: (c: Context, result: TurnResult, turn: TurnContext & { input: string }) => void | Promise<void>;
  /**
   * The files a message of `/invoke` or `/stream` carries, read from its body (the webui's
   * `attachments`; throw an AgentsvcError to refuse them). They are stored on the turn's user
   * message; a message with files may have an empty `input`. Default: none.
   */
  attachmentsOf?: (c: Context, body: Record<string, unknown>, userId: string) => Promise<AttachmentRef[]>;
  /** Body size limit in bytes. Default 1 MiB. */
  bodyLimit?: number;
  /**
   * The namespace of a user's threads: every threadId a client names (or gets minted) is run as
   * `threadScope(userId) + threadId`, and answers carry the client's id back. `agentRoutes` uses
   * `agentThreadScope`; default none (the webui API scopes its runs itself).
   */
  threadScope?: (userId: string) => string;
  /**
   * Several instances serve this route (one PostgreSQL store). A stream's events live in the memory
   * of the instance that runs it, so a `Last-Event-ID` reconnect for a thread this instance does
   * not know answers 421 `reconnect_same_instance` (route the client back: sticky sessions).
   */
  severalInstances?: boolean;
  /**
   * `/stream` events arriving within this many ms of the last write go out together in the next
   * one (see `streamRun`). Default 0: every event is written as soon as it is in the log.
   */
  streamCoalesceMs?: number;
  /**
   * A client that hangs up `/stream` (or `/invoke`, under @hono/node-server) before the run's end
   * cancels the run (and its provider request) when no client has reconnected with
   * `Last-Event-ID` within this many ms; a run waiting for an approval stays. `false` (the
   * default here): hanging up never cancels (the webui, whose page reattaches after a reload and
   * has its own Stop). `agentRoutes`: 3000.
   */
  disconnectGraceMs?: number | false;
}

type Handler = (c: Context) => Promise<Response>;

export interface AgentHandlers {
  invoke: Handler;
  stream: Handler;
  batch: Handler;
  info: Handler;
}

function publicResult(result: TurnResult) {
  return {
    status: result.status,
    output: result.text,
    reasoning: result.reasoning,
    toolCalls: result.toolCalls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments })),
    ...ending(result),
  };
}

function parseLastEventId(value: string): number {
  if (!/^\d{1,15}$/.test(value)) {
    throw new AgentsvcError(
      "invalid_body",
      `Last-Event-ID: expected a non-negative integer (got ${JSON.stringify(value.slice(0, 40))})`,
      400,
    );
  }
  return Number(value);
}

/**
 * The /invoke, /stream, /batch and /info handlers, with identity and conversation hooks injected,
 * so the webui API can mount the same wire format under its own gates.
 */
export function createAgentHandlers(options: AgentHandlerOptions): AgentHandlers {
  const { runs } = options;
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const userOf = async (c: Context) => (options.resolveUser ? await options.resolveUser(c) : DEFAULT_USER_ID);
  const fallbackFor = (userId: string) => options.defaultConversation?.(userId) ?? "default";

  const scopeOf = (userId: string) => options.threadScope?.(userId) ?? "";
  const grace = options.disconnectGraceMs;
  const hangUps: DisconnectCancel | undefined =
    typeof grace === "number" ? disconnectCancel(runs, Math.max(0, grace)) : undefined;
  const follow = (c: Context, handle: RunHandle, after: number, threadId: string) =>
    streamRun(c, handle, {
      after,
      threadId,
      coalesceMs: options.streamCoalesceMs,
      onEnd: hangUps?.follow(handle),
    });
  /**
   * `/invoke`'s client hanging up before the answer counts as a stream's (under @hono/node-server,
   * whose response tells us): the run is cancelled after the same grace period. The answer is
   * called when the turn ended first.
   */
  const watchInvoke = (c: Context, handle: RunHandle): (() => void) => {
    const out = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    if (!hangUps || !out) return () => {};
    const release = hangUps.follow(handle);
    let settled = false;
    const settle = (hungUp: boolean) => {
      // Stryker disable next-line ConditionalExpression,BooleanLiteral: each of the two guards (this flag, the close listener's removal) alone keeps release to one call; a second one after the run ended changes nothing
      if (settled) return;
      // Stryker disable next-line BooleanLiteral: as above
      settled = true;
      // Stryker disable next-line StringLiteral,CallExpression: as above (removing the call, or naming no event, leaves the listener, which the flag then stops)
      out.off("close", onClose);
      release(hungUp);
    };
    const onClose = () => settle(!out.writableFinished);
    out.once("close", onClose);
    // Stryker disable next-line ArrowFunction,BooleanLiteral: called once the turn ended (status no longer running), when no cancel can follow; the response's close after its end settles the same way
    return () => settle(false);
  };

  /** Starts a turn; `threadId` is the client's name for the thread, and so is the one returned. */
  const startTurn = async (
    c: Context,
    input: string,
    requested: string | undefined,
    turn: TurnContext,
    attachments: AttachmentRef[] = [],
  ): Promise<{ handle: RunHandle; threadId: string }> => {
    await options.beforeTurn?.(c, turn);
    const afterTurn = options.afterTurn;
    const prefix = scopeOf(turn.userId);
    const threadId = requested ?? (prefix ? mintThreadId() : undefined);
    const handle = await withoutPrefix(prefix, () =>
      runs.start({
        input,
        ...(attachments.length > 0 ? { attachments } : {}),
        threadId: threadId === undefined ? undefined : prefix + threadId,
        userId: turn.userId,
        conversationId: turn.conversationId,
        onPersisted: afterTurn
          ? (result) => afterTurn(c, { ...result, threadId: threadId ?? result.threadId }, { ...turn, input })
          : undefined,
      }),
    );
    return { handle, threadId: threadId ?? handle.threadId };
  };

  /** A message's text and files: the text may be empty only when files come with it. */
  const messageOf = async (c: Context, body: Record<string, unknown>, userId: string) => {
    const attachments = (await options.attachmentsOf?.(c, body, userId)) ?? [];
    const input = attachments.length > 0 ? inputBesideFiles(body) : requiredInput(body);
    return { input, attachments };
  };

  const guard =
    (handler: Handler): Handler =>
    async (c) => {
      try {
        return await handler(c);
      } catch (error) {
        return errorResponse(c, error);
      }
    };

  return {
    invoke: guard(async (c) => {
      const body = await readJsonObject(c, limit);
      const userId = await userOf(c);
      const { input, attachments } = await messageOf(c, body, userId);
      const threadId = optionalThreadId(body);
      const turn = { userId, conversationId: conversationIdOf(body, fallbackFor(userId)) };
      const { handle, threadId: publicId } = await startTurn(c, input, threadId, turn, attachments);
      c.header("X-Thread-Id", publicId);
      const answered = watchInvoke(c, handle);
      const result = await handle.done;
      // Stryker disable next-line CallExpression: see watchInvoke's answer: the close after the response's end settles the same way
      answered();
      const answer = { threadId: publicId, conversationId: turn.conversationId, ...publicResult(result) };
      if (result.status !== "failed") return c.json({ success: true, ...answer });
      // A failed turn answers with a status a client can act on (429 + Retry-After: try again later).
      const error = publicError(result.error);
      const retryAfter = retryAfterSeconds(error);
      // Stryker disable next-line ConditionalExpression: Hono's c.header(name, undefined) removes the header, as not setting it does
      if (retryAfter !== undefined) c.header("Retry-After", retryAfter);
      return c.json({ success: false, ...answer, error }, failedStatus(error.code) as ContentfulStatusCode);
    }),

    stream: guard(async (c) => {
      const body = await readJsonObject(c, limit);
      const threadId = optionalThreadId(body);
      const userId = await userOf(c);
      const lastEventId = c.req.header("last-event-id");
      if (lastEventId !== undefined) {
        // Reconnect: replay what was missed of a live (or just finished) run; input is ignored.
        // Headers arrive trimmed (fetch's Headers, Node's parser): " 3 " is read as "3".
        const after = parseLastEventId(lastEventId);
        if (!threadId)
          throw new AgentsvcError(
            "invalid_body",
            "threadId: required when reconnecting with Last-Event-ID",
            400,
          );
        const handle = runs.get(scopeOf(userId) + threadId);
        if (!handle && options.severalInstances) {
          throw new AgentsvcError(
            "reconnect_same_instance",
            `no live or recently finished run under threadId ${threadId} on this instance; a stream can only be ` +
              "resumed on the instance that runs it (configure sticky sessions on the load balancer)",
            421,
          );
        }
        if (!handle || handle.options.userId !== userId) {
          throw new AgentsvcError(
            "not_found",
            `no live or recently finished run under threadId ${threadId}`,
            404,
          );
        }
        return follow(c, handle, after, threadId);
      }
      const { input, attachments } = await messageOf(c, body, userId);
      const turn = { userId, conversationId: conversationIdOf(body, fallbackFor(userId)) };
      const started = await startTurn(c, input, threadId, turn, attachments);
      return follow(c, started.handle, 0, started.threadId);
    }),

    batch: guard(async (c) => {
      const body = await readJsonObject(c, limit);
      const inputs = batchInputs(body);
      const requested = optionalThreadId(body);
      const userId = await userOf(c);
      const turn = { userId, conversationId: conversationIdOf(body, fallbackFor(userId)) };
      const results: {
        input: string;
        status: string;
        output: string;
        error?: PublicTurnError;
      }[] = [];
      let threadId = requested;
      let stopped = false;
      for (const input of inputs) {
        if (stopped) {
          results.push({ input, status: "skipped", output: "" });
          continue;
        }
        try {
          // The first turn mints the thread (unless one was requested); later turns reuse it.
          const started = await startTurn(c, input, threadId, turn);
          threadId = started.threadId;
          c.header("X-Thread-Id", threadId);
          const result = await started.handle.done;
          results.push({
            input,
            status: result.status,
            output: result.text,
            ...ending(result),
            ...(result.status === "failed" ? { error: publicError(result.error) } : {}),
          });
          stopped = result.status !== "completed";
        } catch (error) {
          if (results.length === 0) throw error; // nothing ran: answer with the error itself
          // Told no more than /invoke would be: an unexpected error's text stays in the log.
          const e = knownError(error);
          results.push({ input, status: "failed", output: "", error: { code: e.code, message: e.message } });
          stopped = true;
        }
      }
      return c.json({ success: true, threadId, conversationId: turn.conversationId, results });
    }),

    info: guard(async (c) => {
      const userId = await userOf(c);
      const conversationId = c.req.query("conversationId") || fallbackFor(userId);
      if (!options.info) throw new AgentsvcError("not_found", "no info configured for this route", 404);
      const info = await options.info(c, { userId, conversationId });
      return c.json({ success: true, ...info });
    }),
  };
}
