// `agentsvc doctor` for a signal entry: the signal-cli HTTP daemon's GET /api/v1/check
// (https://github.com/AsamK/signal-cli/blob/master/man/signal-cli.1.adoc, daemon --http).
import { type AdapterDoctor, callJson, trimUrl } from "@agentsvc/config-schema/adapter";
import type { SignalEntry } from "./schema.js";

export const doctor: AdapterDoctor = async (raw) => {
  const entry = raw as unknown as SignalEntry;
  const check = "signal-cli daemon /api/v1/check";
  try {
    const { status } = await callJson(`${trimUrl(entry.httpUrl)}/api/v1/check`);
    if (status === 200) return [{ check, status: "ok", detail: `daemon answers at ${entry.httpUrl}` }];
    return [
      {
        check,
        status: "failed",
        detail: `HTTP ${status}`,
        fix: `run signal-cli daemon --http at ${entry.httpUrl}`,
      },
    ];
  } catch (error) {
    return [
      {
        check,
        status: "failed",
        detail: (error as Error).message,
        fix: `start signal-cli daemon --http (httpUrl is ${entry.httpUrl})`,
      },
    ];
  }
};
