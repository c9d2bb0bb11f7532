import * as v from "valibot";
import { envVarName, httpUrl, integerIn, nonEmptyString, strict } from "./common.js";
import { budgetsSchema, pricesSchema } from "./spend.js";

export const DATASOURCE_TYPES = ["sqlite", "postgres"] as const;

/** `off`: plain TCP. `require`: TLS without checking the certificate. `verify-full`: TLS, chain and host name checked. */
export const POSTGRES_SSL_MODES = ["off", "require", "verify-full"] as const;
export const DEFAULT_POSTGRES_POOL = 10;
/** Upper bound on `pool`: each instance opens up to this many connections to one server. */
export const MAX_POSTGRES_POOL = 1000;
/** Upper bound on `maxHeldThreads`: far above any lock table a server is configured with. */
const MAX_HELD_THREADS_LIMIT = 1_000_000;

export const sqliteDatasourceSchema = strict({ type: v.literal("sqlite") }, "a sqlite datasource");

/** One PostgreSQL server shared by every instance. The connection string is only named (`urlEnvVar`). */
export const postgresDatasourceSchema = strict(
  {
    type: v.literal("postgres"),
    urlEnvVar: envVarName,
    pool: v.optional(integerIn(1, MAX_POSTGRES_POOL, "connections per instance"), DEFAULT_POSTGRES_POOL),
    ssl: v.optional(
      v.picklist(POSTGRES_SSL_MODES, `must be one of ${POSTGRES_SSL_MODES.join(", ")} (TLS to the server)`),
    ),
    sslCaFile: v.optional(nonEmptyString("PEM file of the CA that signed the server certificate")),
    applicationName: v.optional(nonEmptyString("application_name shown in pg_stat_activity")),
    statementTimeoutMs: v.optional(integerIn(0, 86_400_000, "statement_timeout in ms; 0 turns it off")),
    connectTimeoutMs: v.optional(integerIn(1, 600_000, "bound on opening one connection, in ms")),
    idleTimeoutMs: v.optional(
      integerIn(0, 86_400_000, "how long an idle pooled connection is kept, in ms; 0 keeps it until stop"),
    ),
    // Default 1000 lives with the cap (session-core held-cap.ts); unset here lets AGENTSVC_MAX_HELD_THREADS apply.
    maxHeldThreads: v.optional(
      integerIn(1, MAX_HELD_THREADS_LIMIT, "threads one instance holds at once, each an advisory lock"),
    ),
  },
  "a postgres datasource",
);

export const datasourceSchema = v.variant(
  "type",
  [sqliteDatasourceSchema, postgresDatasourceSchema],
  (issue) =>
    issue.expected === "Object"
      ? "must be a mapping (a datasource: { type: sqlite } or { type: postgres, urlEnvVar: ... })"
      : `must be one of ${DATASOURCE_TYPES.join(", ")}`,
);

/** `power`: fsync before every answer (survives power loss). `process`: survives a process crash. */
export const STORE_DURABILITIES = ["power", "process"] as const;
export const DEFAULT_STORE_DURABILITY = "power";

const storeDatasourceName = nonEmptyString(
  "name of the datasource holding the project's own store (memory, suspended runs, gateway inbox and outbox); a postgres one lets several instances run the project",
);

const storeMapping = strict(
  {
    datasource: v.optional(storeDatasourceName),
    durability: v.optional(
      v.picklist(
        STORE_DURABILITIES,
        "must be power (fsync before every answer: survives power loss) or process (SQLite synchronous = NORMAL: survives a process crash, may lose the last commits on power loss)",
      ),
    ),
  },
  "the project's store: { datasource?, durability? }",
);

/** `store: <datasource>` or `store: { datasource?, durability? }` (each form reports its own issues). */
export const storeSchema = v.lazy((input) =>
  typeof input === "string" ? storeDatasourceName : storeMapping,
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

const metricsPath = v.pipe(
  v.string("must be a string: the path /metrics are served at"),
  v.trim(),
  v.startsWith("/", "must start with / (the path /metrics are served at, e.g. /metrics)"),
  v.check(
    (p) => p !== "/health" && !p.startsWith("/health/"),
    "is taken by the health probes (/health, /health/live, /health/ready): pick another, e.g. /metrics",
  ),
);

/**
 * Prometheus metrics, off unless declared: at `path` on the service's own port (behind an API key
 * when `apiKeyEnvVar` is set), or on a separate `port` bound to 127.0.0.1.
 */
export const metricsSchema = v.pipe(
  strict(
    {
      path: v.optional(metricsPath),
      port: v.optional(integerIn(1, 65535, "TCP port of a separate metrics listener on 127.0.0.1")),
      apiKeyEnvVar: v.optional(envVarName),
    },
    "metrics: { path?, port?, apiKeyEnvVar? }",
  ),
  v.check(
    (m) => m.path !== undefined || m.port !== undefined,
    "needs a path (served on the service's port, e.g. path: /metrics) or a port (a separate listener on 127.0.0.1)",
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
    store: v.optional(storeSchema),
    metrics: v.optional(metricsSchema),
    prices: v.optional(pricesSchema),
    budgets: v.optional(budgetsSchema),
    datasources: v.optional(
      v.record(
        v.pipe(
          v.string(),
          v.regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, "must be a datasource name (letters, digits, _ and -)"),
        ),
        datasourceSchema,
        "must be a mapping of datasource name to { type: sqlite } or { type: postgres, urlEnvVar: ... }",
      ),
      {},
    ),
  },
  "agentsvc.config",
);
