// The session's outbox sender: told by the gateways' send errors about rejected credentials, and
// (several instances) telling the leader when there is something to send.
import type { Logger } from "pino";
import { announce, type Coordination } from "./coordination.js";
import type { Gateway } from "./gateway.js";
import type { SessionObserver } from "./observer.js";
import type { OutboxOptions } from "./outbox-options.js";
import { OutboxSender } from "./outbox-sender.js";
import type { GatewayRegistry } from "./registry.js";
import type { SessionStore } from "./store.js";
import type { Previews } from "./streaming.js";

/** At most one `outbox` announcement per this many ms from one instance. */
export const OUTBOX_WAKE_WINDOW_MS = 100;

/** `send` at once, then at most once per `windowMs`: calls within a window go as one at its end. */
export function coalesced(send: () => void, windowMs: number): () => void {
  let timer: NodeJS.Timeout | undefined;
  let last = Number.NEGATIVE_INFINITY;
  const fire = () => {
    timer = undefined;
    last = Date.now();
    send();
  };
  return () => {
    if (timer) return;
    const wait = last + windowMs - Date.now();
    if (wait <= 0) return fire();
    // Not kept alive for this: a wake lost at exit is found by the leader's own look.
    timer = setTimeout(fire, wait).unref();
  };
}

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
    // Another instance sends: tell it there is something to send, once per window however many
    // replies were committed in it (the leader also looks every second).
    ...(coordination.shared
      ? {
          elsewhere: coalesced(
            () => announce(coordination, input.logger, { kind: "outbox" }),
            OUTBOX_WAKE_WINDOW_MS,
          ),
        }
      : {}),
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
