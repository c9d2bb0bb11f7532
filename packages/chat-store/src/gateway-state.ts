// Small durable key-value state per gateway: a long-poll offset, an IMAP UID, a websocket
// session id and sequence. Values are JSON.
import { and, eq } from "./orm.js";
import type { StoreContext } from "./context.js";
import { gatewayState } from "./schema.js";
import { requireId, toJson } from "./validate.js";

export class GatewayState {
  constructor(private readonly ctx: StoreContext) {}

  async get<T = unknown>(gateway: string, key: string): Promise<T | undefined> {
    const rows = await this.ctx.run((db) =>
      db
        .select({ value: gatewayState.value })
        .from(gatewayState)
        .where(and(eq(gatewayState.gateway, gateway), eq(gatewayState.key, key))),
    );
    return rows[0] ? (JSON.parse(rows[0].value) as T) : undefined;
  }

  async set(gateway: string, key: string, value: unknown): Promise<void> {
    const values = {
      gateway: requireId(gateway, "gateway"),
      key: requireId(key, "key"),
      value: toJson(value, "value"),
      updatedAt: this.ctx.now(),
    };
    await this.ctx.run((db) =>
      db
        .insert(gatewayState)
        .values(values)
        .onConflictDoUpdate({
          target: [gatewayState.gateway, gatewayState.key],
          set: { value: values.value, updatedAt: values.updatedAt },
        }),
    );
  }

  async delete(gateway: string, key: string): Promise<void> {
    await this.ctx.run((db) =>
      db.delete(gatewayState).where(and(eq(gatewayState.gateway, gateway), eq(gatewayState.key, key))),
    );
  }
}
