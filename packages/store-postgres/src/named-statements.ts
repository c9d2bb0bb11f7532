// Named (prepared) statements for the pool. drizzle sends every query as an unnamed statement, so
// the server parses, analyses and plans each execution again; the store runs the same few dozen
// statement texts all day (a gateway message is about a dozen of them). Naming a parameterized
// text makes node-postgres parse it once per connection and then only bind and execute it, and
// lets the server keep its plan (PostgreSQL's plan cache: custom plans first, a generic one once
// it is no worse). The texts are the store's own; names are handed out per pool, the same text
// always getting the same name. Texts whose shape varies (a multi-row VALUES of another length)
// are different texts: past `limit` names, new texts go unnamed, so neither side's cache grows
// without bound.
import type { Client, ClientConfig, FieldDef, QueryResult } from "pg";
import { arrayLiteral } from "./array-literal.js";
import { loadPg } from "./orm.js";
import { keepShape, type RowShapes, reuseShape } from "./row-shapes.js";

/** Distinct statement texts named per pool; later texts run unnamed. */
export const NAMED_STATEMENT_LIMIT = 256;

type ClientClass = new (config?: string | ClientConfig) => Client;
type Callback = (err: Error | null, result?: QueryResult) => void;

/** A query given as a text, or as an object holding nothing but its text and values. */
function plainText(config: unknown): string | undefined {
  if (typeof config === "string") return config;
  if (typeof config !== "object" || config === null || Object.getPrototypeOf(config) !== Object.prototype)
    return undefined;
  for (const key in config) if (key !== "text" && key !== "values") return undefined;
  const text = (config as { text?: unknown }).text;
  return typeof text === "string" ? text : undefined;
}

/**
 * Array values as PostgreSQL array literals, written here when every element is a string, number,
 * boolean or null (what node-postgres would write, without its two regular expressions a
 * string); other values are left to node-postgres.
 */
function withLiterals(values: unknown[]): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!Array.isArray(v)) continue;
    const literal = arrayLiteral(v);
    if (literal === undefined) continue;
    out ??= values.slice();
    out[i] = literal;
  }
  return out ?? values;
}

/** node-postgres 8's Query as far as a named statement's row description goes (private fields). */
interface QueryInternals {
  name?: string;
  callback?: Callback;
  _result: Parameters<typeof reuseShape>[2];
  _accumulateRows: unknown;
  listeners(event: string): unknown[];
  handleRowDescription(msg: { fields: FieldDef[] }): void;
}

/** pg's Query, taking what its connection built for a statement's rows before (row-shapes.ts). */
function shapedQuery() {
  const { Query } = loadPg();
  // biome-ignore lint/suspicious/noExplicitAny: pg's Query is typed without its handlers.
  return class extends (Query as unknown as new (...args: any[]) => QueryInternals) {
    shapes: RowShapes | undefined;

    override handleRowDescription(msg: { fields: FieldDef[] }): void {
      const { shapes, name } = this;
      if (shapes && name && reuseShape(shapes, name, this._result, msg.fields)) {
        // As Query.handleRowDescription after addFields.
        this._accumulateRows = this.callback || !this.listeners("row").length;
        return;
      }
      super.handleRowDescription(msg);
      if (shapes && name) keepShape(shapes, name, this._result);
    }
  };
}

/** A pg Client class whose queries with parameters run as named statements. */
export function namingClient<C extends ClientClass>(Base: C, limit = NAMED_STATEMENT_LIMIT): C {
  const Query = shapedQuery();
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
    /** Row descriptions this connection's named statements answered with, and what was built from them. */
    readonly #shapes: RowShapes = new Map();

    // biome-ignore lint/suspicious/noExplicitAny: as above.
    override query(config: any, values?: any, callback?: any): any {
      const text = typeof config === "string" ? config : config?.text;
      if (typeof text === "string" && !config.name) {
        const params = Array.isArray(values) ? values : config.values;
        const name = Array.isArray(params) && params.length > 0 ? nameOf(text) : undefined;
        // A text (pool.query, chat-store's own statements) is made into its Query here, named:
        // node-postgres copies a config object property by property (its descriptors) for every
        // query, a visible share of the ingest path's CPU.
        if (name && plainText(config) !== undefined)
          return this.#named(
            text,
            name,
            withLiterals(params),
            typeof values === "function" ? values : callback,
          );
        if (name) config = typeof config === "string" ? { text, name } : { ...config, name };
      }
      return super.query(config, values, callback);
    }

    /** What `query` answers for a named text: as node-postgres does, a promise without a callback. */
    #named(text: string, name: string, values: unknown[], callback: Callback | undefined): unknown {
      const query = new Query(text, values, callback);
      query.name = name;
      query.shapes = this.#shapes;
      if (callback) {
        super.query(query as never);
        return undefined;
      }
      return new Promise<QueryResult>((resolve, reject) => {
        query.callback = (err, res) => (err ? reject(err) : resolve(res as QueryResult));
        super.query(query as never);
      }).catch((err: unknown) => {
        // As node-postgres: the stack leads back to the caller, not to the socket's read.
        if (err instanceof Error) Error.captureStackTrace(err);
        throw err;
      });
    }
  };
  return Named as unknown as C;
}
