// The Gateway contract as the engine sees it: the contract itself lives in @agentsvc/adapter-kit
// (what adapters build on); what an entry adds to the session (approvals, access, media) stays here.
import type { SenderAccessOptions } from "./access.js";
import type { MediaOptions } from "./media-notes.js";

export type {
  Author,
  DecidedNotice,
  DecideResult,
  DecisionInput,
  DeliverResult,
  DraftIds,
  Gateway,
  GatewayCapabilities,
  GatewayContext,
  GatewayFactory,
  GatewayStateStore,
  Inbound,
  InteractionRequest,
  InteractionView,
  OutboxEntry,
  ReplyStream,
  SendOptions,
  SendResult,
  StreamOptions,
  WebhookRequest,
  WebhookResponse,
  WebhookRoute,
} from "@agentsvc/adapter-kit";

/** What a gateway entry adds to the session: where approvals go and who may decide. */
export interface GatewayEntryOptions {
  /** Platform thread (chat id, phone number, address) for approval requests of runs that did not come through this gateway. */
  approvalDestination?: string;
  /** Platform user ids that may decide any request on this gateway, besides the thread's own participant. */
  approvers?: readonly string[];
  /** Stream replies while the turn runs (platforms that can). Default true. */
  streaming?: boolean;
  /** Least time between two updates of a streamed reply. Default 1 000 ms. */
  streamIntervalMs?: number;
  /** Who may start a turn through this entry (push gateways); absent: anyone. */
  access?: SenderAccessOptions;
  /** What attachments the entry does not take in get (absent: one short answer per message). */
  media?: MediaOptions;
}
