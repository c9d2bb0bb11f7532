// check and doctor read an adapter from its light `./adapter` entry (metadata, schema, doctor) when
// the package declares one, so they do not load the gateway; a package without it is read from its
// main entry, as before (docs/building-an-adapter.md, section 2).
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findAdapter, PUSH_TYPES } from "../src/index.js";
import { writeProject } from "./helpers.js";

const LIGHT = `
export const adapter = { type: "toy", kind: "connection", account: "bot", secrets: ["tokenEnvVar"] };
export const entrySchema = {};
export async function doctor() { return []; }
`;
// A main entry that cannot be imported: reading it would fail the load.
const HEAVY = `throw new Error("the main entry was imported");\n`;
const FULL = `${LIGHT}export function createGateway() {}\n`;

function installPackage(dir: string, name: string, manifest: object, files: Record<string, string>): void {
  const root = join(dir, "node_modules", name);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "package.json"), JSON.stringify({ name, type: "module", ...manifest }));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(root, file), text);
}

describe("the light adapter entry", () => {
  it("reads a package that declares ./adapter from it, without importing its main entry", async () => {
    const dir = writeProject({}, { adapters: false });
    installPackage(
      dir,
      "agentsvc-gateway-toy",
      { exports: { ".": "./index.js", "./adapter": "./adapter.js" } },
      { "index.js": HEAVY, "adapter.js": LIGHT },
    );
    const found = await findAdapter("agentsvc-gateway-toy", dir);
    expect(found).toMatchObject({ found: "loaded", module: { adapter: { type: "toy" } } });
  });

  it("falls back to the main entry of a package without the subpath, which must then hold createGateway", async () => {
    const dir = writeProject({}, { adapters: false });
    // A file named adapter.js that the package does not declare is not its light entry.
    installPackage(
      dir,
      "agentsvc-gateway-toy",
      { exports: "./index.js" },
      { "index.js": FULL, "adapter.js": HEAVY },
    );
    expect(await findAdapter("agentsvc-gateway-toy", dir)).toMatchObject({ found: "loaded" });

    installPackage(dir, "agentsvc-gateway-bare", { main: "./index.js" }, { "index.js": LIGHT });
    expect(await findAdapter("agentsvc-gateway-bare", dir)).toMatchObject({
      found: "invalid",
      message: expect.stringMatching(/exports no `createGateway` function/),
    });
  });

  it.each(PUSH_TYPES)("the built-in %s light entry loads no gateway code", (type) => {
    const dir = writeProject({});
    // A fresh process records every module the import loads (Node's synchronous resolve hook).
    const script = `
      import { registerHooks } from "node:module";
      const seen = [];
      registerHooks({ resolve(spec, ctx, next) { const r = next(spec, ctx); seen.push(r.url); return r; } });
      await import("@agentsvc/gateway-${type}/adapter");
      console.log(JSON.stringify(seen));
    `;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: dir,
      encoding: "utf8",
    });
    const loaded = (JSON.parse(out) as string[]).filter((url) => url.startsWith("file:"));
    expect(loaded.length).toBeGreaterThan(0);
    const gatewayCode = loaded.filter((url) =>
      /\/gateway\.js$|adapter-kit|webhook-kit|markdown|session-core|agent-core/.test(url),
    );
    expect(gatewayCode).toEqual([]);
  });
});
