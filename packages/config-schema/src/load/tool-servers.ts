// The tool servers under mcp/, and what a reference to one (an agent's toolServers, an mcp
// exposure's target) may name: a tool server with errors of its own is not also "undeclared".
import * as v from "valibot";
import type { IssueSink } from "../issues.js";
import { toolServerDefinitionSchema } from "../schemas/agent.js";
import type { ToolServerEntry } from "../types.js";
import { listFolder, MODULE_EXTS, reportDuplicateNames } from "./files.js";
import { loadAny, type ModuleLoader } from "./module.js";

export interface ToolServerRefs {
  /**
   * Reports a reference (`path` of `file`) naming no tool server: `undeclared` is the start of that
   * message. A reference matching only the file name of a tool server whose name cannot be read is
   * accepted on that guess, and told the file did not load (or its name has errors).
   */
  check(file: string, path: string, ref: string, undeclared: string): void;
}

/** A tool-server file whose declared name cannot be read, and why. */
interface Nameless {
  rel: string;
  base: string;
  why: "did not load" | "has errors in its name";
}

/**
 * The valid tool servers, and the names of those with errors: the `name` they declare, or, when it
 * cannot be read (the file does not load, or its name has errors), the file's base name.
 */
export async function loadToolServers(
  root: string,
  loader: ModuleLoader,
  sink: IssueSink,
): Promise<{ toolServers: ToolServerEntry[]; refs: ToolServerRefs }> {
  const files = listFolder(root, "mcp", MODULE_EXTS, sink);
  reportDuplicateNames(files, "tool-server file", sink);
  const out: ToolServerEntry[] = [];
  const byName = new Map<string, string>();
  const broken = new Set<string>();
  const nameless: Nameless[] = [];
  for (const f of files) {
    const loaded = await loadAny(loader, f, sink);
    const value = loaded.ok ? loaded.value : undefined;
    const r = loaded.ok ? v.safeParse(toolServerDefinitionSchema, value) : undefined;
    if (r && !r.success) sink.fromValibot(f.rel, r.issues);
    const name = r?.success ? r.output.name : loaded.ok ? readName(value) : undefined;
    if (name === undefined) {
      nameless.push({ rel: f.rel, base: f.base, why: loaded.ok ? "has errors in its name" : "did not load" });
      continue;
    }
    if (!r?.success) broken.add(name);
    // Checked for a file with errors in other keys too: each file is told its name is taken at once.
    const other = byName.get(name);
    if (other) {
      sink.error(f.rel, "name", "must be unique across tool servers", `"${name}", also declared in ${other}`);
      continue;
    }
    byName.set(name, f.rel);
    if (r?.success) out.push({ name, file: f.rel, definition: value });
  }
  const names = out.map((t) => t.name);
  const declared = () => {
    const list = `declared: ${names.join(", ") || "none"}`;
    if (nameless.length === 0) return list;
    const files = nameless.map((n) => `${n.rel} ${n.why}`).join(", ");
    return `${list}; ${files}: ${nameless.length > 1 ? "their names are" : "its name is"} unknown`;
  };
  return {
    toolServers: out,
    refs: {
      check: (file, path, ref, undeclared) => {
        if (names.includes(ref) || broken.has(ref)) return;
        const guess = nameless.find((n) => n.base === ref);
        if (guess)
          sink.error(
            file,
            path,
            `names ${guess.rel} by its file name, but that file ${guess.why} (reported for that file): the name it declares is checked once it loads`,
            JSON.stringify(ref),
          );
        else sink.error(file, path, `${undeclared} (${declared()})`, JSON.stringify(ref));
      },
    },
  };
}

/** The `name` of a definition with errors, when that key has none of its own. */
function readName(raw: unknown): string | undefined {
  const name = raw !== null && typeof raw === "object" ? (raw as { name?: unknown }).name : undefined;
  const r = v.safeParse(toolServerDefinitionSchema.entries.name, name);
  return r.success ? r.output : undefined;
}
