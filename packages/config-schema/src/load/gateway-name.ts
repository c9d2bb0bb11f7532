// A gateway file's entry name (its file name without extension) names the gateway everywhere: a
// channel adapter registers under it, thread ids embed it (`gw:<name>:<thread>`, so a `:` in it
// could make one gateway's thread id another's), and URLs (`/gateways/<name>/events`), metrics
// labels, schedules and budgets carry it. The rule refuses what can break those (`:`, `/`, spaces,
// `%`, quotes) and keeps every name a project could reasonably have used (`my_bot`, `Web`, `hooks.v2`).
import type { IssueSink } from "../issues.js";
import type { FoundFile } from "./files.js";

const GATEWAY_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const GATEWAY_NAME_RULE = "letters, digits, '.', '_' and '-', starting with a letter or digit";

/** Reports a gateway file whose entry name breaks the rule. */
export function checkGatewayName(file: FoundFile, sink: IssueSink): void {
  if (GATEWAY_NAME.test(file.base)) return;
  sink.error(
    file.rel,
    "",
    `the gateway entry name (the file name without extension) must be ${GATEWAY_NAME_RULE}: it names the gateway in thread ids, URLs and metrics`,
    JSON.stringify(file.base),
  );
}
