// A gateway file's entry name (its file name without extension) names the gateway everywhere: a
// channel adapter registers under it, thread ids embed it (`gw:<name>:<thread>`, so a `:` in it
// could make one gateway's thread id another's), and URLs (`/gateways/<name>/events`), metrics
// labels, schedules and budgets carry it. One rule for every gateway file: the registry-name rule
// push-style types and adapter packages' `adapter.type` already follow.
import type { IssueSink } from "../issues.js";
import { isRegistryName } from "../adapter/package-name.js";
import type { FoundFile } from "./files.js";

const GATEWAY_NAME_RULE = "lower-case letters, digits and dashes, starting with a letter";

/** Reports a gateway file whose entry name breaks the rule. */
export function checkGatewayName(file: FoundFile, sink: IssueSink): void {
  if (isRegistryName(file.base)) return;
  sink.error(
    file.rel,
    "",
    `the gateway entry name (the file name without extension) must be ${GATEWAY_NAME_RULE}: it names the gateway in thread ids, URLs and metrics`,
    JSON.stringify(file.base),
  );
}
