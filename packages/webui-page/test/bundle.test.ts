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
});
