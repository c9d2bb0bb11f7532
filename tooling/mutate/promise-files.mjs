// The files whose behaviour is a promise to the user, per package (paths from the repository root).
// One entry per file (or one glob), so `node tooling/mutate/check-promise-files.mjs` (part of
// `pnpm lint`) can tell when a name no longer matches anything: a renamed file would otherwise
// drop out of `pnpm mutate` without a word.

/** Adapters: the inbound path, the connection or webhook, the send path (api), and what shapes a reply. */
const ADAPTERS = {
  "gateway-discord": ["inbound", "connection", "api", "gateway", "stream", "format", "thread"],
  "gateway-email": ["inbound", "connection", "api", "gateway", "format", "thread", "sender-auth", "tls"],
  "gateway-github": ["inbound", "webhook", "api", "gateway", "thread"],
  "gateway-http": ["inbound", "webhook", "handler", "signature", "api", "gateway", "thread"],
  "gateway-signal": ["inbound", "connection", "sse", "api", "gateway", "thread"],
  "gateway-slack": ["inbound", "inbound-text", "connection", "api", "gateway", "stream", "format", "thread"],
  "gateway-teams": ["inbound", "webhook", "connector-auth", "api", "gateway", "stream"],
  "gateway-telegram": ["inbound", "connection", "api", "gateway", "stream", "format", "thread"],
  "gateway-twilio": ["webhook", "signature", "api", "gateway", "format"],
  "gateway-whatsapp": ["inbound", "webhook", "api", "gateway", "format", "thread"],
};

const special = {
  "session-core": [
    "outbox-sender",
    "outbox-send-one",
    "outbox-due-read",
    "outbox-waves",
    "outbox-deliver",
    "outbox-fence",
    "outbox-shares",
    "outbox-partition",
    "approvals",
    "recovery",
    "policy",
    "turns",
    "ownership",
    "dispatch",
    "hold-timers",
    "hold-stretch",
    "recent-let-gos",
    "sweep",
    "held-cap",
    "reply-prefix",
  ].map((f) => `src/${f}.ts`),
  "chat-store": [
    "inbox",
    "pg-writes",
    "lock-fence",
    "outbox",
    "outbox-fence",
    "outbox-share",
    "interactions",
    "sent-batch",
    "statement-batch",
    "prompt-cache",
    // A budget's day and month sums: a spend limit is a promise to the user.
    "usage-sums",
  ].map((f) => `src/${f}.ts`),
  "webhook-kit": ["src/!(index).ts"],
  // Everything but the contract's types and the export list.
  "adapter-kit": ["src/!(index|gateway|scheduler|dedup-window).ts"],
  "gateway-cli": ["src/cli-gateway.ts"],
  "pg-cluster": ["src/!(index).ts"],
  "agent-routes": ["src/!(index).ts"],
  cli: ["src/commands/outbox.ts", "src/commands/check.ts"],
  // apps/server (packageDir): a budget refuses at its limit, each call's spend counted once.
  server: ["src/spend-meter.ts"],
  // The mentions the bot must not send live (gateway-mattermost, gateway-github use it).
  markdown: ["src/mentions.ts"],
};

/** A configured package's folder from the repository root: packages/<pkg>, apps/server for the server. */
export function packageDir(pkg) {
  return pkg === "server" ? "apps/server" : `packages/${pkg}`;
}

/**
 * Test files a package's Stryker runs are limited to by default (MUTATE_TESTS overrides): the
 * server's suite starts whole projects in most files, whose agents load the packages' dist (not in
 * Stryker's sandbox); its spend meter's own tests do not.
 */
export const DEFAULT_TESTS = {
  server: ["test/spend-meter*.test.ts"],
};

/**
 * Test files left out of a package's Stryker runs by default (MUTATE_EXCLUDE overrides): tests of the
 * built package (dist), which Stryker's sandbox does not have; they cover no mutated source file.
 */
export const DEFAULT_EXCLUDE = {
  "pg-cluster": ["test/leadership-processes.test.ts"],
  "chat-store": ["test/restart.test.ts"],
  // Its child process loads the built transport (dist/http-transport.js).
  "adapter-kit": ["test/http-transport-tls.test.ts"],
};

/** The packages `pnpm mutate` runs on when none is named. */
export const MUTATED_PACKAGES = [
  "session-core",
  "chat-store",
  "webhook-kit",
  "adapter-kit",
  "pg-cluster",
  "agent-routes",
  "cli",
  "server",
  "markdown",
  ...Object.keys(ADAPTERS),
];

/** Every package with configured files (`pnpm mutate <pkg>` works for each; lint checks them all). */
export const CONFIGURED_PACKAGES = [...Object.keys(special), ...Object.keys(ADAPTERS)];

/** Globs of the files to mutate in `pkg` (a package folder name, e.g. `gateway-slack`), one per file or group. */
export function promiseFiles(pkg) {
  const files = special[pkg] ?? ADAPTERS[pkg]?.map((f) => `src/${f}.ts`);
  if (!files) throw new Error(`pnpm mutate: no promise-carrying files configured for "${pkg}"`);
  return files.map((f) => `${packageDir(pkg)}/${f}`);
}
