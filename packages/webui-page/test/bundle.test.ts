import { execFileSync } from "node:child_process";
import { closeSync, openSync, readdirSync, readFileSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error - plain ESM build script without type declarations
import { bundleClient, generatedModule } from "../scripts/bundle.mjs";

describe("client bundle", () => {
  it("the committed src/client.gen.ts matches a fresh bundle of src/client (run `pnpm bundle` if not)", async () => {
    const fresh = generatedModule(await bundleClient()) as string;
    const committed = await readFile(join(import.meta.dirname, "..", "src", "client.gen.ts"), "utf8");
    expect(
      committed === fresh,
      "src/client.gen.ts is stale: run `pnpm --filter @agentsvc/webui-page bundle`",
    ).toBe(true);
  });

  it("the build replaces src/client.gen.ts by a rename: a reader that opened the old one reads all of it, no temp file stays", () => {
    // Written in place, a server or test loading it while a build runs could read half a module.
    const file = join(import.meta.dirname, "..", "src", "client.gen.ts");
    const before = readFileSync(file, "utf8");
    const inode = statSync(file).ino;
    const reader = openSync(file, "r");
    try {
      execFileSync(process.execPath, ["scripts/bundle.mjs"], {
        cwd: join(import.meta.dirname, ".."),
        stdio: "pipe",
      });
      expect(statSync(file).ino).not.toBe(inode);
      expect(readFileSync(reader, "utf8")).toBe(before);
      expect(readdirSync(join(import.meta.dirname, "..", "src")).filter((f) => f.endsWith(".tmp"))).toEqual(
        [],
      );
    } finally {
      closeSync(reader);
    }
  }, 60_000);
});
