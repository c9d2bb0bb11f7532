import { execFileSync } from "node:child_process";
import { closeSync, openSync, readdirSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { EXPOSES, GATEWAY_TYPES, gatewayEntryJsonSchema } from "../src/index.js";

type Obj = {
  properties: Record<string, { const?: string; default?: unknown }>;
  required?: string[];
  additionalProperties?: unknown;
};

describe("gateway-entry JSON Schema", () => {
  const schema = gatewayEntryJsonSchema() as { anyOf: Obj[]; $schema: string };

  it("has one alternative per exposure kind and per channel type", () => {
    const kinds = schema.anyOf.map((alt) => alt.properties.exposes?.const ?? alt.properties.type?.const);
    expect(kinds.sort()).toEqual([...EXPOSES, ...GATEWAY_TYPES].sort());
  });

  it("carries defaults and required keys editors can offer", () => {
    const webui = schema.anyOf.find((a) => a.properties.exposes?.const === "webui")!;
    expect(webui.properties.showReasoning?.default).toBe(true);
    expect(webui.required).toEqual(["exposes", "path"]);
  });

  it("lists a push entry's common keys and leaves its platform keys to the adapter package", () => {
    const email = schema.anyOf.find((a) => a.properties.type?.const === "email")!;
    expect(Object.keys(email.properties)).toEqual(expect.arrayContaining(["approvers", "dmPolicy", "media"]));
    expect(email.properties.imapPort).toBeUndefined();
    expect(email.additionalProperties).not.toBe(false);
  });

  it("matches the file shipped at schema/gateway-entry.schema.json (rebuild after a schema change)", () => {
    const shipped = JSON.parse(
      readFileSync(new URL("../schema/gateway-entry.schema.json", import.meta.url), "utf8"),
    ) as unknown;
    expect(shipped).toEqual(schema);
  });

  it("the build replaces the file by a rename: a reader that opened the old one reads all of it, no temp file stays", () => {
    // Written in place, a reader in another process could see it truncated, half-written.
    const file = fileURLToPath(new URL("../schema/gateway-entry.schema.json", import.meta.url));
    const before = readFileSync(file, "utf8");
    const inode = statSync(file).ino;
    const reader = openSync(file, "r");
    try {
      execFileSync(process.execPath, ["scripts/write-schema.mjs"], {
        cwd: fileURLToPath(new URL("..", import.meta.url)),
        stdio: "pipe",
      });
      expect(statSync(file).ino).not.toBe(inode);
      expect(readFileSync(reader, "utf8")).toBe(before);
      expect(readdirSync(fileURLToPath(new URL("../schema/", import.meta.url)))).toEqual([
        "gateway-entry.schema.json",
      ]);
    } finally {
      closeSync(reader);
    }
  });
});
