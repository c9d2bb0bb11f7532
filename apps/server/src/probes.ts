// Orchestrator probes beside the root `/health`. `live`: the process answers (nothing else is
// checked, so a slow store never gets the process restarted). `ready`: the primary store can be read
// and written right now and carries the current schema, and every gateway the session started is
// either running or stopped with its reason. A gateway stopped for rejected credentials does not make
// the instance unready: restarting it would not fix the credential, and the others still serve.
import { CURRENT_SCHEMA_VERSION, type ChatDb } from "@agentsvc/chat-store";
import type { GatewaySession } from "@agentsvc/session-core";
import { Hono } from "hono";

/** How long the readiness query may take before the store counts as unreachable. */
const STORE_QUERY_TIMEOUT_MS = 2000;

export interface StoreReadiness {
  state: "ok" | "read-only" | "unavailable" | "not-migrated";
  schemaVersion?: number;
  detail?: string;
}

export async function storeReadiness(db: ChatDb): Promise<StoreReadiness> {
  // The probe never waits on a lock (better-sqlite3 would otherwise block the event loop).
  if (!db.health.probe("read")) return { state: "unavailable", detail: "the store is locked for reading" };
  if (!db.health.probe("write"))
    return { state: "read-only", detail: "another process holds the store's write lock" };
  let timer: NodeJS.Timeout | undefined;
  try {
    // A real query over a table the migrations create: reachable and migrated, not just connected.
    await Promise.race([
      db.outbox.countByStatus("pending"),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer in ${STORE_QUERY_TIMEOUT_MS} ms`)),
          STORE_QUERY_TIMEOUT_MS,
        );
      }),
    ]);
  } catch (error) {
    return { state: "unavailable", detail: (error as Error).message };
  } finally {
    clearTimeout(timer);
  }
  const schemaVersion = db.schemaVersion();
  if (schemaVersion < CURRENT_SCHEMA_VERSION)
    return {
      state: "not-migrated",
      schemaVersion,
      detail: `schema version ${schemaVersion}, this release needs ${CURRENT_SCHEMA_VERSION}`,
    };
  return { state: "ok", schemaVersion };
}

export function probeRoutes(input: {
  session: Pick<GatewaySession, "status">;
  store: ChatDb;
  /** False once shutdown began: the orchestrator stops sending traffic before the drain. */
  accepting: () => boolean;
}): Hono {
  return new Hono()
    .get("/health/live", (c) => c.json({ status: "ok" }))
    .get("/health/ready", async (c) => {
      const store = await storeReadiness(input.store);
      const gateways = input.session.status();
      // A stopped gateway must say why; one without a reason would be an unexplained outage.
      const unexplained = Object.entries(gateways).filter(([, g]) => g.state !== "running" && !g.reason);
      const shuttingDown = !input.accepting();
      const ready = store.state === "ok" && unexplained.length === 0 && !shuttingDown;
      return c.json(
        {
          status: ready ? "ready" : "not-ready",
          ...(shuttingDown ? { reason: "shutting down" } : {}),
          store,
          gateways,
        },
        ready ? 200 : 503,
      );
    });
}
