// A push-style gateway entry: the keys every adapter shares (approvals, sender access, media) are
// checked here; the platform keys come from the adapter package's `entrySchema` (issue #42).
import * as v from "valibot";
import type { AdapterEntrySchema } from "../adapter/contract.js";
import { senderAccessKeys } from "./access.js";
import { gatewayEntryCommon, strict } from "./common.js";
import { connectionKeys } from "./connection.js";
import { mediaKeys } from "./media.js";

const commonKeys = (type: string) => ({
  type: v.literal(type, `must be ${type}`),
  ...gatewayEntryCommon,
  ...senderAccessKeys,
  ...mediaKeys,
  ...connectionKeys,
});

/** "a telegram entry", "an email entry": how messages name the entry. */
const labelOf = (type: string) => `${/^[aeiou]/.test(type) ? "an" : "a"} ${type} entry`;

/**
 * The whole entry of `type`: common keys, then the adapter's, unknown keys refused. Messages name
 * the entry by the adapter's registry name (`a line entry` for `@acme/agentsvc-gateway-line`).
 */
export function pushEntrySchema(type: string, platform: AdapterEntrySchema, name = type) {
  return strict({ ...commonKeys(type), ...platform }, labelOf(name));
}

/**
 * An entry whose adapter package is not installed: the common keys are checked, the platform keys
 * kept as written (nothing here knows them; check and start name the package to install).
 */
export function pushEntryWithoutAdapter(type: string) {
  return v.looseObject(commonKeys(type), (issue) =>
    issue.input === undefined && issue.path?.length
      ? `is required in ${labelOf(type)}`
      : `must be a mapping (${labelOf(type)})`,
  );
}
