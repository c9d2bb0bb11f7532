// Checking an inbound message and turning it into the run origin kept with its record.
import { AgentsvcError, type RunOrigin } from "@agentsvc/agent-core";
import type { Inbound } from "./gateway.js";

export function checkInbound(inbound: Inbound & { gateway: string }): void {
  for (const key of ["dedupKey", "thread", "text"] as const) {
    if (typeof inbound[key] !== "string") {
      throw new AgentsvcError(
        "bad_inbound",
        `deliver (${inbound.gateway}): ${key}: expected a string (got ${typeof inbound[key]})`,
      );
    }
  }
  if (inbound.dedupKey === "" || inbound.thread === "") {
    throw new AgentsvcError(
      "bad_inbound",
      `deliver (${inbound.gateway}): dedupKey and thread must not be empty`,
    );
  }
  if (!inbound.author || typeof inbound.author.id !== "string" || inbound.author.id === "") {
    throw new AgentsvcError(
      "bad_inbound",
      `deliver (${inbound.gateway}): author.id: expected the platform user id`,
    );
  }
}

/** The run origin of an inbound message: where its reply goes and who may decide its approvals. */
export function originOf(inbound: Inbound, gateway: string): RunOrigin {
  return {
    gateway,
    thread: inbound.thread,
    ...(inbound.meta ? { meta: inbound.meta } : {}),
    author: {
      id: inbound.author.id,
      ...(inbound.author.displayName !== undefined ? { displayName: inbound.author.displayName } : {}),
      ...(inbound.author.isBot !== undefined ? { isBot: inbound.author.isBot } : {}),
    },
  };
}
