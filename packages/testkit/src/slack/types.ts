// The slice of Slack's Socket Mode and Web API shapes the fake speaks (field names as documented).

export interface SlackEnvelope {
  envelope_id: string;
  type: "events_api" | "interactive" | "slash_commands";
  payload: Record<string, unknown>;
  accepts_response_payload: boolean;
  retry_attempt?: number;
  retry_reason?: string;
}

export interface SlackButton {
  type: "button";
  action_id: string;
  value?: string;
  text: { type: "plain_text"; text: string };
  style?: "primary" | "danger";
}

export interface SlackBlock {
  type: string;
  block_id?: string;
  text?: { type: string; text: string };
  elements?: (SlackButton | Record<string, unknown>)[];
}

/** A message the bot posted, with its current text and blocks. */
export interface SlackBotMessage {
  channel: string;
  ts: string;
  threadTs?: string;
  text: string;
  blocks?: SlackBlock[];
  updates: number;
  /** A message made by chat.startStream: true until chat.stopStream. */
  streaming?: boolean;
}

export type SlackFault =
  | { status: 429; retryAfter: number }
  | { status: 500 | 503 }
  /** `{ ok: false, error }` with HTTP 200, as the Web API reports most failures. */
  | { error: string }
  | { drop: true }
  /** The call succeeds, but its answer is held this long after it took effect (a slow Slack). */
  | { slowAnswerMs: number };

export interface SlackConnectionInfo {
  id: number;
  openedAt: number;
  /** When the hello frame went out. */
  helloAt?: number;
  closedAt?: number;
  deaf: boolean;
}
