// The Gateway contract: what every channel adapter and push-style gateway implements, and the
// context the session hands it at start. Kept small on purpose — nine platform adapters build on it.
import type { DecisionKind } from "@agentsvc/agent-core";
import type { Logger } from "pino";
import type { GatewayScheduler } from "./scheduler.js";

/** What the platform can do. The session picks how to render replies and approvals from this. */
export interface GatewayCapabilities {
  /** Replies can target a thread (false e.g. for SMS: one conversation per phone number). */
  threads: boolean;
  /** Buttons/cards/choices for approvals; without it a plain-text request is sent. */
  interactiveActions: boolean;
  /** A sent message can be edited later. */
  editing?: boolean;
  /** Partial text can be streamed (edits or native streaming). */
  streaming?: boolean;
}

/** One inbound platform message, as the adapter hands it to the session. */
export interface Inbound {
  /** Registry key of the gateway (push-style type or channel-adapter entry name). */
  gateway: string;
  /** Platform message id or delivery id; the same key twice is one message. */
  dedupKey: string;
  /** Platform thread id; also the memory conversationId. */
  thread: string;
  text: string;
  userDisplay?: string;
  /** Adapter routing data kept with the run's origin (chat id, message id to reply to, ...). JSON only. */
  meta?: Record<string, unknown>;
}

export type DeliverResult = { accepted: true; id: number } | { accepted: false; duplicate: true };

/** A decision as a gateway reports it. `decidedBy` is passed separately, from the platform's identity. */
export interface DecisionInput {
  decision: DecisionKind;
  reason?: string;
  editedData?: unknown;
  /** Also cancel the run after rejecting (the cli `Q` choice). */
  cancelRun?: boolean;
}

export type DecideResult =
  | { ok: true; requestId: string; decision: DecisionKind }
  | { ok: false; code: "not_found" | "already_decided" | "bad_decision"; message: string };

/** A request for a human decision, rendered by a gateway. */
export interface InteractionRequest {
  requestId: string;
  /** The run's threadId (RunManager). */
  threadId: string;
  /** Registry key of the gateway asked to render it. */
  gateway: string;
  /** Platform thread to render it on (for approval-channel requests: the run's threadId). */
  thread: string;
  allowedDecisions: DecisionKind[];
  toolName: string;
  arguments: unknown;
  /** The request in words, with the allowed decisions listed; what a text-only platform sends. */
  prompt: string;
  createdAt: number;
  /** Adapter routing data from the run's origin. */
  meta?: Record<string, unknown>;
}

export interface InteractionView extends InteractionRequest {
  status: "open" | "decided";
}

/** Handed to a gateway at start. Everything a gateway needs from the session goes through here. */
export interface GatewayContext {
  /** Durable ingest: resolves once the message is recorded (or found a duplicate). Acknowledge the platform only after. */
  deliver(inbound: Inbound): Promise<DeliverResult>;
  /** Report a decision on an interaction request; resumes the run. */
  decide(requestId: string, decision: DecisionInput, decidedBy: string): Promise<DecideResult>;
  /** Read an interaction request (open or decided); undefined when unknown. */
  interaction(requestId: string): Promise<InteractionView | undefined>;
  /** This gateway's own logger, named `gateway-<type>`. */
  logger: Logger;
  /** The shared scheduler, scoped to this gateway (task names are prefixed, errors logged on `logger`). */
  scheduler: GatewayScheduler;
  /** Environment values read at start-up (a missing variable reads as ""). */
  env: Readonly<Record<string, string | undefined>>;
}

export interface OutboundMeta {
  /** The origin meta of the run this reply belongs to. */
  meta?: Record<string, unknown>;
}

export interface Gateway {
  /** `push` gateways register under their type; `channel` adapters under their entry name. */
  readonly kind: "push" | "channel";
  /** Type string (`telegram`, `http`, `mock`, ...). */
  readonly type: string;
  /** Registry key: the type for push-style gateways, the entry name for channel adapters. */
  readonly name: string;
  readonly capabilities: GatewayCapabilities;
  /** Largest text one outbound message may carry; the session chunks replies to it. */
  readonly messageLimit: number;
  start(context: GatewayContext): Promise<void>;
  /** Idempotent. After it resolves the gateway delivers nothing more. */
  stop(): Promise<void>;
  /** Send one piece (at most `messageLimit` characters) to a thread. */
  send(thread: string, text: string, options?: OutboundMeta): Promise<void>;
  /** Render an approval request: buttons/cards when `interactiveActions`, else a plain-text message (`request.prompt`). */
  requestDecision(request: InteractionRequest): Promise<void>;
}
