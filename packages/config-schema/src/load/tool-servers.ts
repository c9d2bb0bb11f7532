// The tool servers under mcp/, and what a reference to one (an agent's toolServers, an mcp
// exposure's target) may name: a tool server with errors of its own is not also "undeclared".
import * as v from "valibot";
import type { IssueSink } from "../issues.js";
import { toolServerDefinitionSchema } from "../schemas/agent.js";
import type { ToolServerEntry } from "../types.js";
import { listFolder, MODULE_EXTS, reportDuplicateNames } from "./files.js";
import { loadAny, type ModuleLoader } from "./module.js";

export interface ToolServerRefs {
  /** Whether `name` names no tool server: neither a valid one nor one with errors of its own. */
  undeclared(name: string): boolean;
  /** The parenthesis of an undeclared reference's message. */
  declared(): string;
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
  const nameless: string[] = [];
  for (const f of files) {
    const loaded = await loadAny(loader, f, sink);
    const value = loaded.ok ? loaded.value : undefined;
    const r = loaded.ok ? v.safeParse(toolServerDefinitionSchema, value) : undefined;
    if (r && !r.success) sink.fromValibot(f.rel, r.issues);
    const name = r?.success ? r.output.name : loaded.ok ? readName(value) : undefined;
    if (name === undefined) {
      broken.add(f.base);
      nameless.push(f.rel);
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
  return {
    toolServers: out,
    refs: {
      undeclared: (ref) => !names.includes(ref) && !broken.has(ref),
      declared: () => {
        const list = `declared: ${names.join(", ") || "none"}`;
        if (nameless.length === 0) return list;
        return `${list}; ${nameless.join(", ")} ${nameless.length > 1 ? "have" : "has"} errors and no readable name`;
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
