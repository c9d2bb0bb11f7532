// Small durable key-value state per gateway: a long-poll offset, an IMAP UID, a websocket
// session id and sequence. Values are JSON.
import { and, eq } from "./orm.js";
import type { StoreContext } from "./context.js";
import { requireId, toJson } from "./validate.js";

export class GatewayState {
  private get t() {
    return this.ctx.tables;
  }

  constructor(private readonly ctx: StoreContext) {}

  async get<T = unknown>(gateway: string, key: string): Promise<T | undefined> {
    const rows = await this.ctx.run((db) =>
      db
        .select({ value: this.t.gatewayState.value })
        .from(this.t.gatewayState)
        .where(and(eq(this.t.gatewayState.gateway, gateway), eq(this.t.gatewayState.key, key))),
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
        .insert(this.t.gatewayState)
        .values(values)
        .onConflictDoUpdate({
          target: [this.t.gatewayState.gateway, this.t.gatewayState.key],
          set: { value: values.value, updatedAt: values.updatedAt },
        }),
    );
  }

  async delete(gateway: string, key: string): Promise<void> {
    await this.ctx.run((db) =>
      db
        .delete(this.t.gatewayState)
        .where(and(eq(this.t.gatewayState.gateway, gateway), eq(this.t.gatewayState.key, key))),
    );
  }
}
