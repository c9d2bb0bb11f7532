// In-process sender access tables for the memory store: the same behaviour as ChatDb's
// (store-schema step 8), minus durability.
import type { ApprovedSender, PairingRecord, SessionSenderAccess } from "../store.js";

export function memorySenderAccess(): SessionSenderAccess {
  const codes = new Map<string, PairingRecord>();
  const approved = new Map<string, ApprovedSender>();
  const windows = new Map<string, { windowStart: number; count: number }>();
  const key = (gateway: string, sender: string) => `${gateway}\u0000${sender}`;
  const decide = (code: string, now: number, status: "approved" | "denied") => {
    const rec = codes.get(code);
    if (rec?.status !== "pending" || rec.expiresAt <= now) return undefined;
    rec.status = status;
    if (status === "approved")
      approved.set(key(rec.gateway, rec.sender), {
        gateway: rec.gateway,
        sender: rec.sender,
        approvedAt: now,
        code,
      });
    return { ...rec };
  };
  return {
    async isApproved(gateway, sender) {
      return approved.has(key(gateway, sender));
    },
    async currentCode(gateway, sender, now) {
      const mine = [...codes.values()].filter(
        (c) => c.gateway === gateway && c.sender === sender && c.expiresAt > now,
      );
      return mine.sort((a, b) => b.createdAt - a.createdAt)[0];
    },
    async addCode(record) {
      if (codes.has(record.code)) return false;
      codes.set(record.code, { ...record, status: "pending" });
      return true;
    },
    async hit(k, windowMs, now) {
      const w = windows.get(k);
      const next =
        !w || w.windowStart + windowMs <= now ? { windowStart: now, count: 1 } : { ...w, count: w.count + 1 };
      windows.set(k, next);
      return next;
    },
    async pendingCodes(now) {
      return [...codes.values()]
        .filter((c) => c.status === "pending" && c.expiresAt > now)
        .sort((a, b) => a.createdAt - b.createdAt);
    },
    async approvedSenders() {
      return [...approved.values()];
    },
    async approve(code, now) {
      return decide(code, now, "approved");
    },
    async deny(code, now) {
      return decide(code, now, "denied");
    },
    async revoke(gateway, sender) {
      return approved.delete(key(gateway, sender));
    },
  };
}
