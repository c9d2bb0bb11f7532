// The store the gateway session uses when metrics are on: each write transaction (a turn's end
// with its reply, a queued reply, an approval request) is timed from begin to commit.
import type { ChatDb } from "@agentsvc/chat-store";
import type { ServerMetrics } from "./metrics.js";

export function meteredStore(db: ChatDb, metrics: Pick<ServerMetrics, "observeCommit">): ChatDb {
  const transaction: ChatDb["transaction"] = async (fn) => {
    const started = performance.now();
    const result = await db.transaction(fn);
    metrics.observeCommit((performance.now() - started) / 1000);
    return result;
  };
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "transaction") return transaction;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
