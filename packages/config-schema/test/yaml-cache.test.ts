// `start` reads its YAML files' data as its last start parsed them (yaml-cache.ts, #45).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { loadProject } from "../src/index.js";
import { openYamlCache, survivesJson } from "../src/load/yaml-cache.js";
import { writeProject } from "./helpers.js";

const CACHE = join(".agentsvc", "yaml-cache.json");
const FILES = {
  "gateways/a.yaml": "exposes: agent\npath: /agent\n",
  "gateways/w.yaml": "exposes: webui\npath: /chat\ntheme:\n  accent: 001122\n",
};

async function loaded(dir: string) {
  const r = await loadProject(dir, { yamlCache: true });
  if (!r.ok) throw new Error(`expected a valid project: ${JSON.stringify(r.errors)}`);
  r.saveYamlCache();
  return r.project;
}

const paths = (p: Awaited<ReturnType<typeof loaded>>) => p.exposures.map((e) => e.path).sort();

describe("the YAML data kept between starts", () => {
  it("a second load reads each unchanged file's data from the cache, and finds the same project", async () => {
    const dir = writeProject(FILES);
    const first = await loaded(dir);
    const kept = JSON.parse(readFileSync(join(dir, CACHE), "utf8"));
    expect(Object.keys(kept.files).sort()).toEqual(["gateways/a.yaml", "gateways/w.yaml"]);
    expect(await loaded(dir)).toEqual(first);
    // What a hit returns is the kept data, not a new parse: a kept path shows through.
    kept.files["gateways/a.yaml"].value.path = "/kept";
    writeFileSync(join(dir, CACHE), JSON.stringify(kept));
    expect(paths(await loaded(dir))).toEqual(["/chat", "/kept"]);
  });

  it("an edited file is parsed again and its new data kept", async () => {
    const dir = writeProject(FILES);
    await loaded(dir);
    writeFileSync(join(dir, "gateways/a.yaml"), "exposes: agent\npath: /edited\n");
    expect(paths(await loaded(dir))).toEqual(["/chat", "/edited"]);
    const kept = JSON.parse(readFileSync(join(dir, CACHE), "utf8"));
    expect(kept.files["gateways/a.yaml"].value.path).toBe("/edited");
  });

  it("data kept by another parse format (an upgrade) is parsed again", async () => {
    const dir = writeProject(FILES);
    await loaded(dir);
    const kept = JSON.parse(readFileSync(join(dir, CACHE), "utf8"));
    kept.files["gateways/a.yaml"].value.path = "/kept";
    writeFileSync(join(dir, CACHE), JSON.stringify({ ...kept, format: "yaml@1" }));
    expect(paths(await loaded(dir))).toEqual(["/agent", "/chat"]);
    expect(JSON.parse(readFileSync(join(dir, CACHE), "utf8")).format).toBe(kept.format);
  });

  it("theme hex values keep their text through the cache", async () => {
    const dir = writeProject(FILES);
    await loaded(dir);
    const webui = (await loaded(dir)).exposures.find((e) => e.exposes === "webui");
    expect(webui).toMatchObject({ theme: { accent: "#001122" } });
  });

  it("a YAML syntax error is reported from the file, never from the cache", async () => {
    const dir = writeProject(FILES);
    await loaded(dir);
    writeFileSync(join(dir, "gateways/a.yaml"), "exposes: agent\npath: [unclosed\n");
    const r = await loadProject(dir, { yamlCache: true });
    expect(r.ok).toBe(false);
    expect(JSON.stringify(r.ok ? [] : r.errors)).toMatch(/must be valid YAML/);
  });

  it("without the option nothing is kept", async () => {
    const dir = writeProject(FILES);
    const r = await loadProject(dir);
    expect(r.ok).toBe(true);
    if (r.ok) r.saveYamlCache();
    expect(existsSync(join(dir, CACHE))).toBe(false);
  });

  it("a load writes nothing until the caller saves, and a load with errors cannot save", async () => {
    const dir = writeProject(FILES);
    const r = await loadProject(dir, { yamlCache: true });
    expect(r.ok).toBe(true);
    expect(existsSync(join(dir, ".agentsvc"))).toBe(false);
    writeFileSync(join(dir, "gateways/a.yaml"), "exposes: nothing\n");
    const bad = await loadProject(dir, { yamlCache: true });
    expect(bad.ok).toBe(false);
    expect("saveYamlCache" in bad).toBe(false);
    expect(existsSync(join(dir, ".agentsvc"))).toBe(false);
  });

  it("data JSON would change (an infinite number) is not kept", () => {
    const dir = writeProject({});
    const cache = openYamlCache(dir);
    cache.set("a.yaml", "x: .inf\n", { x: Number.POSITIVE_INFINITY });
    cache.set("b.yaml", "x: 1\n", { x: 1 });
    cache.save();
    const again = openYamlCache(dir);
    expect(again.get("a.yaml", "x: .inf\n")).toBeUndefined();
    expect(again.get("b.yaml", "x: 1\n")).toEqual({ value: { x: 1 } });
    expect(again.get("b.yaml", "x: 2\n")).toBeUndefined();
  });

  it("keeps exactly what a JSON round trip gives back deep-equal (isDeepStrictEqual's answer)", () => {
    const values: unknown[] = [
      null,
      "x",
      true,
      1.5,
      -0,
      Number.NaN,
      Number.NEGATIVE_INFINITY,
      undefined,
      [1, "a", null, [true]],
      [1, undefined],
      // biome-ignore lint/suspicious/noSparseArray: a hole is what JSON changes
      [1, , 2],
      { a: { b: [1, { c: "d" }] }, e: false },
      { a: undefined },
      { a: -0 },
      { a: Number.NaN },
      Object.create(null),
      Object.assign(Object.create(null), { a: 1 }),
      JSON.parse('{"__proto__": {"x": 1}}'),
      { [Symbol("s")]: 1 },
      new Date(0),
      Object.defineProperty({}, "hidden", { value: 1, enumerable: false }),
      {
        get a() {
          return 1;
        },
      },
      () => 1,
    ];
    for (const value of values) {
      const json = JSON.stringify(value);
      const back = json === undefined ? undefined : JSON.parse(json);
      expect(survivesJson(value), String(json)).toBe(json !== undefined && isDeepStrictEqual(back, value));
    }
  });
});
