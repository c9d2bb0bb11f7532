// BENCH_CLUSTER_NOTIFIES=1 (#45.3 lever15): the NOTIFYs a configuration's instances send on the bus
// channel, counted by a listener of the bench's own (one more listening backend, which the measured
// CPU leaves out but every notifying commit signals: not in the default run). A NOTIFY carrying a
// list of announcements (`{"kind":"list",...,"items":[...]}`) counts once, its items apart. A
// notifying transaction wakes every listening backend once whatever it sends (lever15: ~0.2 ms over
// three links and their processes, ~0.01 ms a NOTIFY more), so the NOTIFYs are also counted by
// sender run: those one sender's backend delivers back to back in one read of the socket (a
// transaction's NOTIFYs arrive together; two of one pool backend's transactions read together count
// as one: a floor).
import type { PgClient } from "./pg-client.ts";
import { fmt } from "./stats.ts";

export const COUNT_NOTIFIES = process.env.BENCH_CLUSTER_NOTIFIES === "1";
const CHANNEL = "agentsvc_control";

export interface NotifyTally {
  /** NOTIFYs by kind (a list by `list`). */
  notifies: Map<string, number>;
  /** Announcements by kind, a list's items each. */
  items: Map<string, number>;
  bytes: number;
  /** Runs of one sender's NOTIFYs in one read: about the notifying transactions. */
  runs: number;
}

export const notifyTally = (): NotifyTally => ({ notifies: new Map(), items: new Map(), bytes: 0, runs: 0 });

const add = (m: Map<string, number>, k: string, n = 1) => m.set(k, (m.get(k) ?? 0) + n);

/** LISTENs on `client` (the probe's connection to the configuration's database); counts into `into()`. */
export async function countNotifies(client: PgClient, into: () => NotifyTally | undefined): Promise<void> {
  // node-postgres emits every message of one socket read before any I/O callback runs again.
  let lastSender: number | undefined;
  (client as unknown as { on(e: string, f: (n: { payload?: string; processId: number }) => void): void }).on(
    "notification",
    (n) => {
      const t = into();
      if (!t) return;
      if (lastSender !== n.processId) {
        if (lastSender === undefined) setImmediate(() => (lastSender = undefined));
        lastSender = n.processId;
        t.runs++;
      }
      const payload = n.payload ?? "";
      t.bytes += Buffer.byteLength(payload);
      let m: { kind?: string; items?: { kind?: string }[] };
      try {
        m = JSON.parse(payload);
      } catch {
        add(t.notifies, "unreadable");
        return;
      }
      add(t.notifies, String(m.kind));
      if (Array.isArray(m.items)) for (const i of m.items) add(t.items, String(i.kind));
      else add(t.items, String(m.kind));
    },
  );
  await client.query(`LISTEN ${CHANNEL}`);
}

/** One line: NOTIFYs and announcements a message by kind, bytes a message. */
export function notifyLine(title: string, t: NotifyTally, messages: number): string {
  const per = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ${fmt(n / messages, 3)}`)
      .join(", ");
  const total = (m: Map<string, number>) => [...m.values()].reduce((s, n) => s + n, 0);
  return `${title}: NOTIFYs a message ${fmt(total(t.notifies) / messages, 3)} (${per(t.notifies)}); notifying transactions (sender runs) ${fmt(t.runs / messages, 3)}; announcements a message ${fmt(total(t.items) / messages, 3)} (${per(t.items)}); ${fmt(t.bytes / messages, 0)} payload bytes a message`;
}
