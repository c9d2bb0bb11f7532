// Named (prepared) statements for the pool. drizzle sends every query as an unnamed statement, so
// the server parses, analyses and plans each execution again; the store runs the same few dozen
// statement texts all day (a gateway message is about a dozen of them). Naming a parameterized
// text makes node-postgres parse it once per connection and then only bind and execute it, and
// lets the server keep its plan (PostgreSQL's plan cache: custom plans first, a generic one once
// it is no worse). The texts are the store's own; names are handed out per pool, the same text
// always getting the same name. Texts whose shape varies (a multi-row VALUES of another length)
// are different texts: past `limit` names, new texts go unnamed, so neither side's cache grows
// without bound.
import type { Client, ClientConfig } from "pg";

/** Distinct statement texts named per pool; later texts run unnamed. */
export const NAMED_STATEMENT_LIMIT = 256;

type ClientClass = new (config?: string | ClientConfig) => Client;

/** A pg Client class whose queries with parameters run as named statements. */
export function namingClient<C extends ClientClass>(Base: C, limit = NAMED_STATEMENT_LIMIT): C {
  const names = new Map<string, string>();
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < limit) {
      name = `agentsvc_${names.size + 1}`;
      names.set(text, name);
    }
    return name;
  };
  // biome-ignore lint/suspicious/noExplicitAny: pg's query overloads cannot be forwarded with types.
  const Named = class extends (Base as new (...args: any[]) => Client) {
    // biome-ignore lint/suspicious/noExplicitAny: as above.
    override query(config: any, values?: any, callback?: any): any {
      const text = typeof config === "string" ? config : config?.text;
      if (typeof text === "string" && !config.name) {
        const params = Array.isArray(values) ? values : config.values;
        const name = Array.isArray(params) && params.length > 0 ? nameOf(text) : undefined;
        if (name) config = typeof config === "string" ? { text, name } : { ...config, name };
      }
      return super.query(config, values, callback);
    }
  };
  return Named as unknown as C;
}
