// Sender access at ingest: who may start a turn through a push gateway entry (dmPolicy,
// groupPolicy, allowlists, pairing) and how often (rate limits). Checked after dedup, in the same
// transaction as the inbox record, so a refused message is recorded as rejected together with its
// answer, or not at all (the platform redelivers it): never half-processed.
import { randomInt } from "node:crypto";
import { AgentsvcError, type RunOrigin } from "@agentsvc/agent-core";
import type { Gateway, GatewayEntryOptions, Inbound } from "./gateway.js";
import { type OutboxItem, textPieces } from "./replies.js";
import type { SessionSenderAccess, SessionStore } from "./store.js";

export interface RateLimit {
  messages: number;
  perSeconds: number;
}

/** A push gateway entry's sender access keys (config-schema's `SenderAccess`). */
export interface SenderAccessOptions {
  dmPolicy?: "open" | "allowlist" | "pairing" | "disabled";
  allowFrom?: readonly string[];
  groupPolicy?: "open" | "allowlist" | "disabled";
  groupAllowFrom?: readonly string[];
  pairingCodeTtlSeconds?: number;
  refusalReply?: string | false;
  rateLimit?: RateLimit;
  gatewayRateLimit?: RateLimit;
}

export const DEFAULT_PAIRING_CODE_TTL_SECONDS = 3600;
export const DEFAULT_REFUSAL_REPLY = "Sorry, this assistant only answers people its owner has allowed.";
const DAY_MS = 86_400_000;
// No 0/O or 1/I: the code is read aloud and typed by hand.
const CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
const CODE_LENGTH = 8;

/** Why a message was refused (a span attribute and a log field). */
export type RefusalReason =
  | "dm_disabled"
  | "dm_not_allowed"
  | "pairing_required"
  | "group_disabled"
  | "group_not_allowed"
  | "rate_limited_sender"
  | "rate_limited_gateway";

export type AccessVerdict = { admitted: true } | { admitted: false; reason: RefusalReason; reply?: string };

/** True when the entry restricts anything (otherwise ingest takes the plain path). */
export function restricts(access: SenderAccessOptions | undefined): access is SenderAccessOptions {
  if (!access) return false;
  return (
    (access.dmPolicy ?? "open") !== "open" ||
    (access.groupPolicy ?? "open") !== "open" ||
    access.rateLimit !== undefined ||
    access.gatewayRateLimit !== undefined
  );
}

/**
 * Ids compared loosely where users write them differently from platforms: case (e-mail
 * addresses), a leading + and spacing of phone numbers (WhatsApp's wa_id has no +).
 */
export function sameSenderId(id: string): string {
  const trimmed = id.trim().toLowerCase();
  // A leading minus stays: Telegram's group ids are negative, and -42 is not 42.
  if (/^[+-]?[\d\s().-]+$/.test(trimmed))
    return `${trimmed.startsWith("-") ? "-" : ""}${trimmed.replace(/[^\d]/g, "")}`;
  return trimmed;
}

function seconds(ms: number): string {
  const s = Math.max(1, Math.ceil(ms / 1000));
  if (s < 120) return `${s} seconds`;
  const m = Math.ceil(s / 60);
  return m < 120 ? `${m} minutes` : `${Math.ceil(m / 60)} hours`;
}

export function pairingText(code: string, ttlSeconds: number): string {
  return (
    `This assistant is private. To ask its owner for access, send them this pairing code: ${code} ` +
    `(valid for ${seconds(ttlSeconds * 1000)}). They approve it with "agentsvc pairing approve ${code}"; ` +
    "then write again."
  );
}

export function rateLimitText(limit: RateLimit, retryInMs: number): string {
  return (
    `You are sending messages faster than this assistant accepts (${limit.messages} per ${seconds(limit.perSeconds * 1000)}). ` +
    `Please try again in ${seconds(retryInMs)}.`
  );
}

// The normalized ids of an entry's lists, computed once per list (an allowlist may be long).
const normalized = new WeakMap<readonly string[], Set<string>>();
function idSet(list: readonly string[] | undefined): Set<string> {
  if (!list) return new Set();
  let set = normalized.get(list);
  if (!set) {
    set = new Set(list.map(sameSenderId));
    normalized.set(list, set);
  }
  return set;
}

function newCode(): string {
  let code = "";
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/** The access checks of one inbound message; run inside the store transaction that records it. */
export class SenderGate {
  constructor(private readonly store: SessionStore) {}

  #table(gateway: string): SessionSenderAccess {
    const table = this.store.senderAccess;
    if (!table) {
      throw new AgentsvcError(
        "sender_access_unsupported",
        `gateways/${gateway}: sender access is configured but this store cannot keep pairings and rate limits`,
        500,
      );
    }
    return table;
  }

  /**
   * `trusted`: the entry's `approvers` and `approvalDestination`. They answer approval requests by
   * writing (SMS, e-mail), so a direct-message policy never refuses them; rate limits still apply.
   */
  async check(
    gateway: string,
    inbound: Inbound,
    access: SenderAccessOptions,
    now: number,
    trusted: Pick<GatewayEntryOptions, "approvers" | "approvalDestination"> = {},
  ): Promise<AccessVerdict> {
    const table = this.#table(gateway);
    const sender = inbound.author.id;
    const chat = inbound.chat ?? { type: "direct" as const, id: inbound.thread };
    if (chat.type === "group") {
      // Groups are never answered when refused: a bot talking back in a group it should ignore is noise.
      const policy = access.groupPolicy ?? "open";
      if (policy === "disabled") return { admitted: false, reason: "group_disabled" };
      if (policy === "allowlist" && !idSet(access.groupAllowFrom).has(sameSenderId(chat.id)))
        return { admitted: false, reason: "group_not_allowed" };
    } else {
      const policy = access.dmPolicy ?? "open";
      if (policy === "disabled") return { admitted: false, reason: "dm_disabled" };
      const isTrusted =
        idSet(trusted.approvers).has(sameSenderId(sender)) ||
        (trusted.approvalDestination !== undefined && trusted.approvalDestination === chat.id);
      if (
        policy !== "open" &&
        !isTrusted &&
        !(await this.#allowed(table, gateway, sender, chat.id, access))
      ) {
        if (policy === "allowlist") return this.#refuse(gateway, sender, access, now);
        return this.#pair(table, gateway, inbound, access, now);
      }
    }
    if (access.rateLimit) {
      const verdict = await this.#limit(table, `sender:${gateway}:${sender}`, access.rateLimit, now);
      if (verdict) return { admitted: false, reason: "rate_limited_sender", ...verdict };
    }
    if (access.gatewayRateLimit) {
      const verdict = await this.#limit(table, `gateway:${gateway}`, access.gatewayRateLimit, now);
      if (verdict) return { admitted: false, reason: "rate_limited_gateway", ...verdict };
    }
    return { admitted: true };
  }

  async #allowed(
    table: SessionSenderAccess,
    gateway: string,
    sender: string,
    chatId: string,
    access: SenderAccessOptions,
  ): Promise<boolean> {
    // In a direct chat the chat id names the sender too (Signal: the number, while the author is a UUID).
    const allowed = idSet(access.allowFrom);
    if (allowed.has(sameSenderId(sender)) || allowed.has(sameSenderId(chatId))) return true;
    return table.isApproved(gateway, sender);
  }

  /** allowlist: a short refusal at most once per sender per day (`refusalReply: false`: none). */
  async #refuse(
    gateway: string,
    sender: string,
    access: SenderAccessOptions,
    now: number,
  ): Promise<AccessVerdict> {
    const text = access.refusalReply ?? DEFAULT_REFUSAL_REPLY;
    if (text === false) return { admitted: false, reason: "dm_not_allowed" };
    const first = await this.store.seenTokens.claim(
      "access-refusal",
      `${gateway}:${sender}`,
      "1",
      now + DAY_MS,
    );
    return first.claimed
      ? { admitted: false, reason: "dm_not_allowed", reply: text }
      : { admitted: false, reason: "dm_not_allowed" };
  }

  /** pairing: one code per sender until it expires; messages meanwhile get no answer. */
  async #pair(
    table: SessionSenderAccess,
    gateway: string,
    inbound: Inbound,
    access: SenderAccessOptions,
    now: number,
  ): Promise<AccessVerdict> {
    const sender = inbound.author.id;
    if (await table.currentCode(gateway, sender, now)) return { admitted: false, reason: "pairing_required" };
    const ttlSeconds = access.pairingCodeTtlSeconds ?? DEFAULT_PAIRING_CODE_TTL_SECONDS;
    for (let attempt = 0; attempt < 5; attempt++) {
      const code = newCode();
      const added = await table.addCode({
        code,
        gateway,
        sender,
        thread: inbound.thread,
        displayName: inbound.author.displayName ?? null,
        createdAt: now,
        expiresAt: now + ttlSeconds * 1000,
      });
      if (added) return { admitted: false, reason: "pairing_required", reply: pairingText(code, ttlSeconds) };
    }
    throw new AgentsvcError("pairing_code_collision", "could not pick a free pairing code", 503);
  }

  /** Counts the message; when over the limit, the answer (first refusal of the window only). */
  async #limit(
    table: SessionSenderAccess,
    key: string,
    limit: RateLimit,
    now: number,
  ): Promise<{ reply?: string } | undefined> {
    const windowMs = limit.perSeconds * 1000;
    const { count, windowStart } = await table.hit(key, windowMs, now);
    if (count <= limit.messages) return undefined;
    const resetAt = windowStart + windowMs;
    // Exactly one refusal per window is answered: the one that crossed the limit.
    return count === limit.messages + 1 ? { reply: rateLimitText(limit, resetAt - now) } : {};
  }
}

/** The refusal's answer as outbox pieces on the sender's thread. */
export function refusalPieces(
  gateway: Gateway,
  inboxId: number,
  thread: string,
  text: string,
  origin: RunOrigin,
): OutboxItem[] {
  return textPieces(gateway, thread, text, `${gateway.name}:in${inboxId}:access`, origin.meta);
}
