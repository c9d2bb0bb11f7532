// Every adapter package exports the one factory the server calls (`createGateway`), its gateway class
// and its options type, named after its type: a new adapter that misses one fails here, not at boot.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const packagesDir = resolve(import.meta.dirname, "../../../packages");
const adapters = readdirSync(packagesDir).filter((d) => d.startsWith("gateway-"));

/** `gateway-github` -> `Github`. */
const nameOf = (dir: string) => {
  const type = dir.slice("gateway-".length);
  return `${type[0]?.toUpperCase()}${type.slice(1)}`;
};

/** The names `index.ts` exports (type-only ones included), from its export lists. */
function exportedNames(source: string): Set<string> {
  const names = new Set<string>();
  for (const list of source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const raw of (list[1] ?? "").split(",")) {
      const spec = raw.trim().replace(/^type\s+/, "");
      if (!spec) continue;
      const alias = /\bas\s+(\w+)$/.exec(spec);
      names.add(alias ? (alias[1] as string) : spec);
    }
  }
  for (const m of source.matchAll(
    /export\s+(?:declare\s+)?(?:class|function|const|type|interface)\s+(\w+)/g,
  )) {
    names.add(m[1] as string);
  }
  return names;
}

describe("adapter packages", () => {
  it("finds the adapters", () => {
    expect(adapters).toEqual(expect.arrayContaining(["gateway-cli", "gateway-http", "gateway-telegram"]));
  });

  it.each(adapters)(
    "%s exports createGateway, its <Name>Gateway class and <Name>GatewayOptions type",
    async (dir) => {
      const name = nameOf(dir);
      const index = join(packagesDir, dir, "src/index.ts");
      const source = readFileSync(index, "utf8");
      const names = exportedNames(source);
      // Types leave no trace at run time: the options type is checked in the source.
      expect([...names], `${dir}/src/index.ts exports no ${name}GatewayOptions type`).toContain(
        `${name}GatewayOptions`,
      );
      const mod = (await import(index)) as Record<string, unknown>;
      expect(typeof mod.createGateway, `${dir} exports no createGateway`).toBe("function");
      const cls = mod[`${name}Gateway`];
      expect(typeof cls, `${dir} exports no ${name}Gateway class`).toBe("function");
      expect(/^class\b/.test(Function.prototype.toString.call(cls)), `${name}Gateway is not a class`).toBe(
        true,
      );
    },
  );

  it("reads the export lists it checks", () => {
    const names = exportedNames(
      'export { a, type B, c as createGateway } from "./x.js";\nexport type { D } from "./y.js";\nexport class E {}',
    );
    expect([...names].sort()).toEqual(["B", "D", "E", "a", "createGateway"]);
  });
});
