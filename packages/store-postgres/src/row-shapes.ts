// A named statement answers with the same row description at every execution (the server refuses
// one whose result type changed: "cached plan must not change result type"), yet node-postgres
// builds the result's parsers and its empty row again for each (Result.addFields: a dictionary
// object and its copy, ~1.6% of the ingest-pg server's CPU). A connection keeps what it built per
// statement name here, and a result whose description and parsers match takes it as it is.
import type { FieldDef } from "pg";

/** What Result.addFields builds from a row description (node-postgres 8's private fields). */
interface Built {
  fields: FieldDef[];
  _parsers: unknown[] | undefined;
  _prebuiltEmptyResultObject: Record<string, null> | null;
  _types: { getTypeParser(oid: number, format?: string): unknown } | undefined;
  command: string | null;
}

/** One connection's shapes, by statement name. */
export type RowShapes = Map<string, Built>;

function same(a: FieldDef[], b: FieldDef[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as FieldDef;
    const y = b[i] as FieldDef;
    if (x.name !== y.name || x.dataTypeID !== y.dataTypeID || x.format !== y.format) return false;
  }
  return true;
}

/**
 * Gives `result` the parsers and empty row kept for `name` when its description `fields` is the
 * kept one's and each parser is still the one its types give (a type parser set since is taken).
 * False when it did not: the caller builds them (Result.addFields) and keeps them with `keep`.
 */
export function reuseShape(shapes: RowShapes, name: string, result: Built, fields: FieldDef[]): boolean {
  const kept = shapes.get(name);
  const types = result._types;
  if (!kept || !types || result.command !== null || kept._types !== types || !same(kept.fields, fields))
    return false;
  const parsers = kept._parsers;
  if (fields.length > 0) {
    if (!parsers) return false;
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i] as FieldDef;
      if (types.getTypeParser(field.dataTypeID, field.format || "text") !== parsers[i]) return false;
    }
  }
  result.fields = fields;
  result._parsers = parsers;
  result._prebuiltEmptyResultObject = kept._prebuiltEmptyResultObject;
  return true;
}

/** Keeps what Result.addFields built for `name` (a single statement's first description only). */
export function keepShape(shapes: RowShapes, name: string, result: Built): void {
  if (result.command !== null || !result._types) return;
  shapes.set(name, {
    fields: result.fields,
    _parsers: result._parsers,
    _prebuiltEmptyResultObject: result._prebuiltEmptyResultObject,
    _types: result._types,
    command: null,
  });
}
