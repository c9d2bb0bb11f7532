// The files whose behaviour is a promise to the user, per package (paths from the repository root).
// Adapters: the inbound path, the connection or webhook, and the send path (api).
const ADAPTER_FILES = "{inbound,connection,webhook,api}";

const special = {
  "session-core": "src/{outbox-sender,approvals,recovery,policy,turns,ownership,reply-prefix}.ts",
  "chat-store": "src/{inbox,outbox,interactions,sent-batch,statement-batch,prompt-cache}.ts",
  "webhook-kit": "src/!(index).ts",
  "gateway-email": "src/{imap,smtp,email-gateway}.ts",
  "gateway-cli": "src/cli-gateway.ts",
};

/** The packages `pnpm mutate` runs on when none is named. */
export const MUTATED_PACKAGES = [
  "session-core",
  "chat-store",
  "webhook-kit",
  "gateway-discord",
  "gateway-email",
  "gateway-github",
  "gateway-http",
  "gateway-signal",
  "gateway-slack",
  "gateway-teams",
  "gateway-telegram",
  "gateway-twilio",
  "gateway-whatsapp",
];

/** Globs of the files to mutate in `pkg` (a package folder name, e.g. `gateway-slack`). */
export function promiseFiles(pkg) {
  const files = special[pkg] ?? (pkg.startsWith("gateway-") ? `src/${ADAPTER_FILES}.ts` : undefined);
  if (!files) throw new Error(`pnpm mutate: no promise-carrying files configured for "${pkg}"`);
  return [`packages/${pkg}/${files}`];
}
