// The session's outbox sender: told by the gateways' send errors about rejected credentials, and
// (several instances) telling the leader when there is something to send.
import type { Logger } from "pino";
import type { Coordination } from "./coordination.js";
import type { Gateway } from "./gateway.js";
import type { SessionObserver } from "./observer.js";
import { type OutboxOptions, OutboxSender } from "./outbox-sender.js";
import type { GatewayRegistry } from "./registry.js";
import type { SessionStore } from "./store.js";
import type { Previews } from "./streaming.js";

export interface SessionSenderInput {
  previews: Previews;
  store: SessionStore;
  registry: GatewayRegistry;
  loggerFor(gateway: Gateway): Logger;
  logger: Logger;
  outbox: OutboxOptions | undefined;
  coordination: Coordination;
  observer: SessionObserver | undefined;
  onCredentials: NonNullable<ConstructorParameters<typeof OutboxSender>[0]["onCredentials"]>;
  platformCallSucceeded(gateway: string): void;
}

export function sessionSender(input: SessionSenderInput): OutboxSender {
  const { coordination, observer } = input;
  return new OutboxSender({
    drafts: input.previews,
    store: input.store,
    registry: input.registry,
    loggerFor: input.loggerFor,
    logger: input.logger,
    ...(input.outbox ? { options: input.outbox } : {}),
    // Another instance sends: tell it there is something to send.
    ...(coordination.shared ? { elsewhere: () => void coordination.publish({ kind: "outbox" }) } : {}),
    onCredentials: input.onCredentials,
    // A sent piece is a platform call that worked; the rest goes to the configured observer.
    observer: {
      onSending: (gateway) => observer?.onSending?.(gateway),
      onSent: (gateway, outcome, seconds) => {
        if (outcome === "sent") input.platformCallSucceeded(gateway);
        observer?.onSent?.(gateway, outcome, seconds);
      },
    },
  });
}
