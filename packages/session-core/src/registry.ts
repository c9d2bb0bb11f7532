// The gateway registry: push-style gateways under their type, channel adapters under their entry name.
import { AgentsvcError } from "@agentsvc/agent-core";
import type { Logger } from "pino";
import type { Gateway } from "./gateway.js";

export class GatewayRegistry {
  readonly #gateways = new Map<string, Gateway>();

  constructor(private readonly logger?: Logger) {}

  /**
   * Registers a gateway. A push-style gateway's key is its type: a second one of the same type
   * overwrites the first, with a warning (one instance per push-style type per project). A channel
   * adapter's key is its entry name; entry names are unique, so a repeat is an error.
   */
  register(gateway: Gateway): void {
    const key = gateway.kind === "push" ? gateway.type : gateway.name;
    if (gateway.kind === "push" && gateway.name !== gateway.type) {
      throw new AgentsvcError(
        "gateway_name_mismatch",
        `gateway registry: a push-style gateway registers under its type; expected name "${gateway.type}" (got "${gateway.name}")`,
      );
    }
    const existing = this.#gateways.get(key);
    if (existing) {
      if (gateway.kind === "channel" || existing.kind === "channel") {
        throw new AgentsvcError(
          "gateway_duplicate",
          `gateway registry: "${key}" is already registered (a ${existing.kind} gateway of type "${existing.type}"); channel-adapter entry names must be unique`,
        );
      }
      this.logger?.warn(
        { gateway: key },
        `gateway registry: a second "${key}" gateway overwrites the first (one instance per push-style type per project)`,
      );
    }
    this.#gateways.set(key, gateway);
  }

  get(key: string): Gateway | undefined {
    return this.#gateways.get(key);
  }

  has(key: string): boolean {
    return this.#gateways.has(key);
  }

  list(): Gateway[] {
    return [...this.#gateways.values()];
  }
}
