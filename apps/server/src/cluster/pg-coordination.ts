// The session's Coordination over PostgreSQL (@agentsvc/pg-cluster): thread locks and leadership
// are session advisory locks on this instance's own connection (a dead instance's go with its
// socket), announcements are NOTIFY on one channel. Loaded only for a project on PostgreSQL.
import type { ClusterMessage, Coordination } from "@agentsvc/session-core";
// From the host entry: the main one would put the whole session into every start (bundle-chunks test).
import { gatewayThreadId } from "@agentsvc/session-core/host";
import type { Logger } from "pino";

// Not "leader-released": Leadership's own (pg-cluster).
const KINDS: readonly ClusterMessage["kind"][] = ["thread", "outbox", "outbox-help", "run", "run-ack"];

/**
 * The leader says it is alive this often (see `leaderHeartbeatMs`): under the link's default health
 * period (10 s), so the heartbeat is the leader link's health check and, heard, the others'.
 */
const LEADER_HEARTBEAT_MS = 9000;
/** See `leaderRetryMs`: above LEADER_HEARTBEAT_MS / 0.75 (12 s), so a live leader's heartbeat comes first. */
const LEADER_RETRY_MS = 15_000;

export interface PgCoordination extends Coordination {
  close(): Promise<void>;
}

/**
 * A `held` thread announcement's target: this, then the thread's key. The bus reads a payload's
 * target before its JSON, so an instance drops one for a thread it neither holds nor let go lately
 * unparsed (with three instances two thirds of the announcements each hears, #45.3).
 */
const HELD_TARGET = "held:";

/** What the bus requires of a message besides its kind: what it is about. */
function targetOf(message: ClusterMessage): string {
  switch (message.kind) {
    case "thread": {
      const key = gatewayThreadId(message.gateway, message.thread);
      return message.held ? HELD_TARGET + key : key;
    }
    case "run":
      return message.threadId;
    case "run-ack":
      return message.id;
    case "outbox":
    case "outbox-help":
      return "";
  }
}

export async function pgCoordination(options: {
  /** Without TLS parameters: `ssl` decides (store-postgres's datasourceConnection resolves both). */
  connectionString: string;
  /** The link's TLS, as the datasource's pool connects (node-postgres's `ssl`). Default plain TCP. */
  ssl?: false | import("node:tls").ConnectionOptions;
  /** Bound on opening the link, in ms (the datasource's `connectTimeoutMs`). Default pg-cluster's 10 000. */
  connectTimeoutMs?: number;
  logger: Logger;
  /**
   * How long an instance that does not lead waits, give or take a quarter, after the leader's last
   * heartbeat (or its own last try) before it tries: the takeover delay after a leader died (a
   * leader that stops announces it, and another takes over at once). Default 15 000 ms: a killed
   * leader is replaced within 18.75 s of its last heartbeat (before the heartbeat: every 5 s, within
   * 6.25 s, at 24 lock statements a minute at rest on three instances; now none).
   */
  leaderRetryMs?: number;
  /** How often the leader announces that it leads (default 9000 ms); keep it under `leaderRetryMs` x 0.75. */
  leaderHeartbeatMs?: number;
}): Promise<PgCoordination> {
  let cluster: typeof import("@agentsvc/pg-cluster");
  try {
    cluster = await import("@agentsvc/pg-cluster");
  } catch (err) {
    throw new Error(
      `a project whose store is on PostgreSQL runs as several instances and needs @agentsvc/pg-cluster ` +
        `(npm install @agentsvc/pg-cluster): ${(err as Error).message}`,
      { cause: err },
    );
  }
  const log = options.logger.child({ name: "cluster" });
  const onError = (error: Error, context: string) =>
    log.warn({ err: error.message, context }, "cluster connection");
  const link = new cluster.InstanceLink({
    connectionString: options.connectionString,
    ...(options.ssl === undefined ? {} : { ssl: options.ssl }),
    ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
    // Its own name whatever the datasource's applicationName: tooling/cluster-test ends it by this name.
    applicationName: "agentsvc-cluster",
    onError,
  });
  await link.connect();
  // Compose registers the coordination for closing only once this returns: a step that throws
  // after the connect stops what was started, newest first, and the start fails with its error
  // (before, the link's session stayed open, holding a connection slot until the process ended).
  const started: (() => Promise<void>)[] = [() => link.close()];
  let locks: InstanceType<typeof cluster.ThreadLocks>;
  let bus: InstanceType<typeof cluster.Bus>;
  let leadership: InstanceType<typeof cluster.Leadership>;
  try {
    locks = new cluster.ThreadLocks(link);
    bus = new cluster.Bus(link, { onError });
    await bus.start();
    started.push(() => bus.stop());
    leadership = new cluster.Leadership(link, {
      retryMs: options.leaderRetryMs ?? LEADER_RETRY_MS,
      heartbeatMs: options.leaderHeartbeatMs ?? LEADER_HEARTBEAT_MS,
      onError,
      bus,
    });
  } catch (error) {
    for (const stop of started.reverse()) await stop().catch(() => undefined);
    throw error;
  }
  const leaders: { stop(): Promise<void> }[] = [];
  return {
    shared: true,
    // ThreadLocks are not re-entrant; the session may ask again for a thread it holds.
    acquireThread: async (key) => locks.isHeld(key) || locks.tryLock(key),
    // A failed take and its announcement to the holder: one statement on the link.
    async acquireOrAnnounce(key, message) {
      if (locks.isHeld(key)) return "acquired";
      const payload = cluster.busPayload({ ...message, target: targetOf(message) });
      const answer = await locks.tryLockOrNotify(key, { channel: bus.channel, payload });
      return answer === "taken" ? "acquired" : answer === "notified" ? "announced" : "not-acquired";
    },
    // The announcement sent by the inbox INSERT when another instance holds the thread (no lock
    // statement on the link). Room is left for the record's id in the payload.
    recordAnnounce(key, message) {
      const lock = locks.lockOf(key);
      if (!lock || locks.isHeld(key)) return undefined;
      // Kind and target first, as busPayload writes them: the bus reads them before the rest.
      const { kind, ...rest } = message;
      const payload = JSON.stringify({ kind, target: targetOf(message), ...rest });
      if (Buffer.byteLength(payload, "utf8") >= cluster.NOTIFY_PAYLOAD_LIMIT - 32) return undefined;
      return { lock, channel: bus.channel, payload };
    },
    async releaseThread(key) {
      await locks.unlock(key);
    },
    publish: (message) => bus.publish({ ...message, target: targetOf(message) }),
    subscribe(handler, options) {
      const wantsHeld = options?.wantsHeld;
      const wants = wantsHeld
        ? (target: string) => !target.startsWith(HELD_TARGET) || wantsHeld(target.slice(HELD_TARGET.length))
        : undefined;
      const off = KINDS.map((kind) =>
        bus.subscribe(kind, (m) => handler(m as unknown as ClusterMessage), {
          ...(kind === "thread" && wants ? { wants } : {}),
        }),
      );
      return () => {
        for (const unsubscribe of off) unsubscribe();
      };
    },
    lead(role, handlers, options) {
      const handle = leadership.lead(
        role,
        { onAcquired: () => handlers.onLead(), onLost: () => void handlers.onLose() },
        options?.tryAfterMs === undefined ? {} : { tryAfterMs: options.tryAfterMs },
      );
      leaders.push(handle);
      return () => handle.stop();
    },
    threadBusy: (key) => locks.heldAnywhere(key),
    onThreadsLost: (handler) => locks.onLost(handler),
    // Asked of the server on the link's session: a drop not noticed yet still fails it.
    fence: (key) => locks.assertHeld(key),
    // The same check folded into the statement ending a turn (no round trip on the link).
    heldLock: (key) => locks.heldLock(key),
    // The outbox sender's due read checks its roles' locks with it (session-core outbox-fence.ts).
    roleLock: (role) => cluster.roleLock(link, role),
    async close() {
      for (const leader of leaders) await leader.stop();
      await leadership.stop();
      await bus.stop();
      await link.close();
    },
  };
}
