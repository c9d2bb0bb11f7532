import * as v from "valibot";
import { httpUrl, integerIn, nonEmptyString, strict } from "./common.js";

export const DATASOURCE_TYPES = ["sqlite"] as const;

export const datasourceSchema = strict(
  { type: v.picklist(DATASOURCE_TYPES, `must be one of ${DATASOURCE_TYPES.join(", ")}`) },
  "a datasource",
);

const HOST_RULE = /^(\*|\.?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*|[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*)$/;

/** A name the service may be reached by (the `Host` header), for the DNS-rebinding guard. */
export const allowedHostSchema = v.pipe(
  v.string("must be a string: a host name"),
  v.trim(),
  v.regex(
    HOST_RULE,
    "must be a host name without scheme or port (chat.example.com), .example.com for a domain and its subdomains, an IP address, or *",
  ),
);

export const projectConfigSchema = strict(
  {
    port: v.optional(integerIn(0, 65535, "TCP port")),
    allowedHosts: v.optional(v.array(allowedHostSchema, "must be a list of host names")),
    rootAgent: v.optional(nonEmptyString("file name of the root agent under agents/")),
    publicBaseUrl: v.optional(
      httpUrl(
        "the URL the service is reached at from outside, behind a proxy or tunnel; webhook signatures use it",
      ),
    ),
    datasources: v.optional(
      v.record(
        v.pipe(
          v.string(),
          v.regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, "must be a datasource name (letters, digits, _ and -)"),
        ),
        datasourceSchema,
        "must be a mapping of datasource name to { type: sqlite }",
      ),
      {},
    ),
  },
  "agentsvc.config",
);
