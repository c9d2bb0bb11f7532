// What `status()` and the server's `/health` show of each gateway: stopped (with the reason) or
// running, and how long ago its platform last spoke to it and a call to its platform last worked.
import type { SessionParts } from "./parts.js";
import type { GatewayRegistry } from "./registry.js";
import type { Scheduler } from "./scheduler.js";
import type { GatewayStatus } from "./session-options.js";

export class GatewayHealth {
  /** Gateways stopped while the service runs (rejected credentials), with the reason. */
  readonly #halted = new Map<string, string>();
  /** Gateway name -> when the platform last sent it something, and when a call to it last worked (ms epoch). */
  readonly #lastInboundAt = new Map<string, number>();
  readonly #lastPlatformCallAt = new Map<string, number>();

  /**
   * A platform rejected a gateway's credentials: one error naming the variable to fix, its outbox
   * pieces held, its tasks cancelled and the gateway stopped. Repeats are ignored.
   */
  reject(
    d: { parts: SessionParts; scheduler: Scheduler; track(work: Promise<unknown>): void },
    gateway: string,
    envVar: string,
    detail: string,
  ): void {
    const g = d.parts.registry.get(gateway);
    if (!g || this.#halted.has(g.name)) return;
    const reason = `credentials rejected by ${g.type}: check ${envVar} (${detail})`;
    this.#halted.set(g.name, reason);
    d.parts.sender.hold(g.name);
    const logger = d.parts.loggerFor(g);
    logger.error({ gateway: g.name, envVar }, reason);
    d.scheduler.cancelGateway(g.name);
    d.track(g.stop().catch((err: unknown) => logger.error({ err }, "gateway failed to stop cleanly")));
  }

  heard(gateway: string): void {
    this.#lastInboundAt.set(gateway, Date.now());
  }

  platformCallSucceeded(gateway: string): void {
    this.#lastPlatformCallAt.set(gateway, Date.now());
  }

  /** Every registered gateway: running, or stopped with the reason. */
  status(registry: GatewayRegistry): Record<string, GatewayStatus> {
    const out: Record<string, GatewayStatus> = {};
    const now = Date.now();
    const age = (at: number | undefined) => (at === undefined ? undefined : Math.max(0, (now - at) / 1000));
    for (const g of registry.list()) {
      const reason = this.#halted.get(g.name);
      const inbound = age(this.#lastInboundAt.get(g.name));
      const call = age(this.#lastPlatformCallAt.get(g.name));
      out[g.name] = {
        ...(reason === undefined ? { state: "running" as const } : { state: "stopped" as const, reason }),
        ...(inbound !== undefined ? { lastInboundAgeSeconds: inbound } : {}),
        ...(call !== undefined ? { lastPlatformCallAgeSeconds: call } : {}),
      };
    }
    return out;
  }
}
