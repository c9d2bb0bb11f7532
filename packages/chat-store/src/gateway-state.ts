// Small durable key-value state per gateway: a long-poll offset, an IMAP UID, a websocket
// session id and sequence. Values are JSON.
import { and, eq } from "./orm.js";
import type { StoreContext } from "./context.js";
import { gatewayState } from "./schema.js";
import { requireId, toJson } from "./validate.js";

export class GatewayState {
  constructor(private readonly ctx: StoreContext) {}

  get<T = unknown>(gateway: string, key: string): T | undefined {
    const row = this.ctx.db
      .select({ value: gatewayState.value })
      .from(gatewayState)
      .where(and(eq(gatewayState.gateway, gateway), eq(gatewayState.key, key)))
      .get();
    return row ? (JSON.parse(row.value) as T) : undefined;
  }

  set(gateway: string, key: string, value: unknown): void {
    const values = {
      gateway: requireId(gateway, "gateway"),
      key: requireId(key, "key"),
      value: toJson(value, "value"),
      updatedAt: this.ctx.now(),
    };
    this.ctx.db
      .insert(gatewayState)
      .values(values)
      .onConflictDoUpdate({
        target: [gatewayState.gateway, gatewayState.key],
        set: { value: values.value, updatedAt: values.updatedAt },
      })
      .run();
  }

  delete(gateway: string, key: string): void {
    this.ctx.db
      .delete(gatewayState)
      .where(and(eq(gatewayState.gateway, gateway), eq(gatewayState.key, key)))
      .run();
  }
}
