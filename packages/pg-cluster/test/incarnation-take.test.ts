// Taking a link session's incarnation lock (incarnation.ts takeIncarnation) when the random key a
// try draws is already held. PostgreSQL answers every try; another session takes the drawn key just
// before the try asks for it, since a clash of two random 64-bit keys cannot be waited for.
import { postgresMissing } from "@agentsvc/pg-test";
import type { Client } from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { incarnationHalves, takeIncarnation } from "../src/incarnation.js";
import { monitor, usePostgres } from "./helpers.js";

describe.skipIf(postgresMissing)("taking an incarnation lock", () => {
  const pg = usePostgres();
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.end()));
  });
  const session = async () => {
    const client = await monitor(pg.url);
    clients.push(client);
    return client;
  };

  /** `own`'s query, each of its first `clashes` tries asking for a key `other` took just before. */
  function clashing(own: Client, other: Client, clashes: number) {
    const tried: unknown[][] = [];
    const query = async (text: string, values: unknown[]) => {
      tried.push(values);
      if (tried.length <= clashes) await other.query("SELECT pg_advisory_lock($1::int, $2::int)", values);
      return own.query(text, values);
    };
    return { query, tried };
  }

  const takenBy = async (client: Client, halves: unknown[]) =>
    (await client.query("SELECT pg_try_advisory_lock($1::int, $2::int) AS ok", halves)).rows[0]?.ok;

  it("does not take a key another session holds: it tries a fresh one, and its session holds that", async () => {
    const own = await session();
    const other = await session();
    const { query, tried } = clashing(own, other, 1);
    const key = await takeIncarnation(query);
    expect(tried).toHaveLength(2);
    expect(incarnationHalves(key)).toEqual(tried[1]);
    // Its own session holds it: another cannot take it.
    expect(await takenBy(await session(), incarnationHalves(key))).toBe(false);
  });

  it("fails the connect, saying why, after 4 tries that each found their key held", async () => {
    const own = await session();
    const other = await session();
    const { query, tried } = clashing(own, other, Number.POSITIVE_INFINITY);
    await expect(takeIncarnation(query)).rejects.toThrow(
      "InstanceLink: could not take an incarnation lock (its random keys were all held)",
    );
    expect(tried).toHaveLength(4);
    // None of the keys it tried became its own.
    const { rows } = await own.query(
      "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()",
    );
    expect(rows[0]?.n).toBe(0);
  });
});
