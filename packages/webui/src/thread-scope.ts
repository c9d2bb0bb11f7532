// Thread ids are the client's names, scoped to their owner. The RunManager keys runs by one global
// threadId, so without a scope a second user could take an ended run's id (the owner's replay then
// 404s) and the answers to a stranger's id (409, 403) would reveal that it exists. Each user's
// `t` is run as `u.<digest of userId>/t`; answers carry `t` back, never the scoped form.
import { createHash } from "node:crypto";
import {
  AgentsvcError,
  type Caller,
  type Decision,
  mintThreadId,
  type PendingApproval,
  type RunHandle,
  type RunManagerApi,
  type StartRunInput,
  type TurnResult,
} from "@agentsvc/agent-core";

const SCOPED = /u\.[A-Za-z0-9_-]{22}\//g;
/** RunManager thread ids of other namespaces: a gateway's (session-core) and scoped ones (agent route, page). */
const OTHER_NAMESPACE = /^(?:gw:|[au]\.[A-Za-z0-9_-]{22}\/)/;

/** The scope prefix of a user: fixed length, so `prefix + id` never collides across users. */
export function threadScope(userId: string): string {
  return `u.${createHash("sha256").update(userId).digest("base64url").slice(0, 22)}/`;
}

/** Removes every scope prefix from a text (ids inside RunManager error messages). */
export function unscoped(text: string): string {
  return text.replace(SCOPED, "");
}

/** The run as its owner sees it: the client's threadId everywhere. */
function publicHandle(handle: RunHandle, threadId: string): RunHandle {
  const options = { ...handle.options, threadId };
  const done = handle.done.then((result) => ({ ...result, threadId }));
  return new Proxy(handle, {
    get(target, prop) {
      if (prop === "threadId") return threadId;
      if (prop === "options") return options;
      if (prop === "done") return done;
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

async function rethrowUnscoped<T>(work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AgentsvcError) error.message = unscoped(error.message);
    throw error;
  }
}

/**
 * What the webui routes use instead of the RunManager: every id they pass is the caller's own
 * name for a run, and every answer names runs the same way.
 */
export class ScopedRuns {
  private readonly prefix: string;

  constructor(
    private readonly runs: RunManagerApi,
    private readonly caller: Caller,
  ) {
    this.prefix = threadScope(caller.userId);
  }

  private scoped(threadId: string): string {
    return this.prefix + threadId;
  }

  /** A RunManagerApi view for the standard agent handlers (start and get are what they call). */
  api(): RunManagerApi {
    return {
      start: (input) => this.start(input),
      get: (threadId) => this.get(threadId),
      cancel: (threadId, _caller, reason) => this.cancel(threadId, reason),
      steer: (threadId, text) => this.steer(threadId, text),
      resume: (threadId, decision) => this.resume(threadId, decision),
      pending: (threadId) => this.pending(threadId),
      onSuspended: (listener) => this.runs.onSuspended(listener),
      drain: (ms) => this.runs.drain(ms),
    };
  }

  start(input: StartRunInput): RunHandle {
    const threadId = input.threadId ?? mintThreadId();
    const onPersisted = input.onPersisted;
    try {
      const handle = this.runs.start({
        ...input,
        threadId: this.scoped(threadId),
        onPersisted: onPersisted && ((result: TurnResult) => onPersisted({ ...result, threadId })),
      });
      return publicHandle(handle, threadId);
    } catch (error) {
      if (error instanceof AgentsvcError) error.message = unscoped(error.message);
      throw error;
    }
  }

  get(threadId: string): RunHandle | undefined {
    const handle = this.runs.get(this.scoped(threadId));
    return handle && publicHandle(handle, threadId);
  }

  cancel(threadId: string, reason?: string): boolean {
    return this.runs.cancel(this.scoped(threadId), this.caller, reason);
  }

  steer(threadId: string, text: string): boolean {
    return this.runs.steer(this.scoped(threadId), text, this.caller);
  }

  /** `cancel`, reaching the run on whichever instance runs it (several instances). */
  cancelAnywhere(threadId: string, reason?: string): Promise<boolean> {
    const id = this.scoped(threadId);
    return this.runs.cancelAnywhere
      ? this.runs.cancelAnywhere(id, this.caller, reason)
      : Promise.resolve(this.runs.cancel(id, this.caller, reason));
  }

  /** `steer`, reaching the run on whichever instance runs it (several instances). */
  steerAnywhere(threadId: string, text: string): Promise<boolean> {
    const id = this.scoped(threadId);
    return this.runs.steerAnywhere
      ? this.runs.steerAnywhere(id, text, this.caller)
      : Promise.resolve(this.runs.steer(id, text, this.caller));
  }

  /**
   * Nothing of the caller's pending under that id — unknown, ended, or (before scoping) someone
   * else's — is one answer: 403, the spec's answer to a non-owner, so no case can be told apart.
   */
  async resume(threadId: string, decision: Omit<Decision, "decidedBy">): Promise<RunHandle> {
    const id = (await this.runs.pending(this.scoped(threadId), this.caller))
      ? this.scoped(threadId)
      : (await this.legacyPending(threadId))
        ? threadId // a run suspended before ids were scoped, checked to be the caller's
        : undefined;
    if (id === undefined) {
      throw new AgentsvcError(
        "forbidden",
        `no run of yours awaits a decision under threadId ${threadId}`,
        403,
      );
    }
    const handle = await rethrowUnscoped(() => this.runs.resume(id, decision, this.caller));
    return publicHandle(handle, threadId);
  }

  async pending(threadId: string): Promise<PendingApproval | undefined> {
    const found =
      (await this.runs.pending(this.scoped(threadId), this.caller)) ?? (await this.legacyPending(threadId));
    return found && { ...found, threadId };
  }

  /**
   * A run suspended before ids were scoped, under the client's own id. Never an id of another
   * surface's namespace (a gateway's `gw:`, a scoped `a.`/`u.` id): ownership there is a bare user id
   * match, and a page identity that matches a gateway's name must not decide that gateway's runs.
   */
  private legacyPending(threadId: string): Promise<PendingApproval | undefined> {
    if (OTHER_NAMESPACE.test(threadId)) return Promise.resolve(undefined);
    return this.runs.pending(threadId, this.caller);
  }
}
