// What an adapter package exports so agentsvc can validate, start and diagnose its entries without
// knowing the platform (issue #42): `adapter` (metadata), `entrySchema` (its platform keys),
// `createGateway`, and optionally `doctor`. docs/building-an-adapter.md walks through it.
import type * as v from "valibot";

/**
 * How the adapter hears from its platform: `connection` holds a socket or polls (Telegram
 * getUpdates, Slack Socket Mode, IMAP), `webhook` is called on `/webhooks/<type>`, `push` only sends.
 */
export type AdapterKind = "push" | "connection" | "webhook";

export interface AdapterInfo {
  /**
   * The gateway's registry name (lower-case letters, digits, dashes): push gateways register under
   * it, schedules address it (`to.gateway`), logs and metrics label by it. For a built-in adapter
   * it equals the entry's `type`; a third-party adapter picks its own (not a built-in's).
   */
  type: string;
  kind: AdapterKind;
  /**
   * Whose account it speaks through. Only `bot` (a platform's bot, app or business API) is accepted:
   * the spec refuses personal-account messenger bridges, so anything else is an unknown type.
   */
  account: "bot" | "personal";
  /** The entry keys naming environment variables the adapter cannot start without (`botTokenEnvVar`). */
  secrets: readonly string[];
  /** One line for `doctor` and docs: "Telegram Bot API (getUpdates long-poll)". */
  title?: string;
  /**
   * What an attachment gets when the entry has no `media` block: `reply` (default: one short
   * answer saying it was not read) or `ignore` (nothing; WhatsApp reads only a media message's
   * caption, the spec's row for it).
   */
  unsupportedMedia?: "reply" | "ignore";
}

/**
 * The platform keys a schedule's `to` may carry when it sends to this adapter's entries (e-mail:
 * `subject`; WhatsApp: `templateName`, `templateLanguage`). `entries` are valibot entries (each
 * optional); `read` turns the parsed keys into what the target carries, which reaches the adapter
 * as the scheduled run's origin `meta.scheduled`, or refuses them naming the key.
 */
export interface AdapterScheduleTarget {
  entries: v.ObjectEntries;
  read(
    keys: Record<string, unknown>,
  ): { target: Record<string, unknown> } | { issue: { key: string; message: string } };
}

/** An adapter's platform keys: valibot entries merged with the common keys into one strict entry. */
export type AdapterEntrySchema = v.ObjectEntries;

/** One line of `agentsvc doctor`'s table. */
export interface DoctorResult {
  check: string;
  status: "ok" | "failed";
  detail: string;
  /** What to do about a failure. */
  fix?: string;
}

export interface DoctorContext {
  /** The environment the service would start with. */
  env: Record<string, string | undefined>;
  /** Absolute path of the project folder (files an entry names are relative to it). */
  projectDir: string;
}

/**
 * The adapter's live checks of one validated entry (its own keys with their defaults, plus the
 * common ones): one cheap authenticated call per credential, never a message sent. A thrown error
 * is shown as a failed check.
 */
export type AdapterDoctor = (
  entry: Record<string, unknown> & { type: string },
  context: DoctorContext,
) => Promise<DoctorResult[]>;
