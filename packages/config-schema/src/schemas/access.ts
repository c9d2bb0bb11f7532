// Who may talk to the agent through a push gateway entry (OpenClaw's vocabulary): DM and group
// policies, allowlists, pairing and rate limits. Everything is opt-in; absent keys keep the spec's
// behaviour (anyone may write).
import * as v from "valibot";
import { integerIn, strict } from "./common.js";

// Telegram and Discord ids are numbers in YAML unless quoted; both forms mean the same id.
const platformId = (what: string) =>
  v.pipe(
    v.union(
      [v.pipe(v.string(), v.trim(), v.minLength(1)), v.pipe(v.number(), v.integer())],
      `must be a ${what} (a string or an integer)`,
    ),
    v.transform((id) => String(id)),
  );

const idList = (what: string) => v.array(platformId(what), `must be a list of ${what}s`);

const rateLimit = (label: string) =>
  strict(
    {
      messages: integerIn(1, 1_000_000, "messages admitted per window"),
      perSeconds: integerIn(1, 31 * 86_400, "length of the window in seconds"),
    },
    label,
  );

const DM_POLICIES = ["open", "allowlist", "pairing", "disabled"] as const;
const GROUP_POLICIES = ["open", "allowlist", "disabled"] as const;

/** Keys of every push gateway entry that decide who may start a turn. */
export const senderAccessKeys = {
  dmPolicy: v.optional(
    v.picklist(DM_POLICIES, `must be one of ${DM_POLICIES.join(", ")} (who may write in direct messages)`),
  ),
  allowFrom: v.optional(idList("platform user id (e-mail address, phone number)")),
  groupPolicy: v.optional(
    v.picklist(GROUP_POLICIES, `must be one of ${GROUP_POLICIES.join(", ")} (which groups are answered)`),
  ),
  groupAllowFrom: v.optional(idList("group or channel id")),
  pairingCodeTtlSeconds: v.optional(integerIn(60, 7 * 86_400, "seconds a pairing code stays valid")),
  refusalReply: v.optional(
    v.union(
      [v.pipe(v.string(), v.trim(), v.minLength(1)), v.literal(false)],
      "must be the refusal text or false (no answer to a sender who is not allowed)",
    ),
  ),
  rateLimit: v.optional(rateLimit("rateLimit (per sender)")),
  gatewayRateLimit: v.optional(rateLimit("gatewayRateLimit (the whole entry)")),
};
