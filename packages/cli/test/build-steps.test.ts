import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Project, registerBuildStep } from "../src/index.js";
import { BOT_AGENT, run, tempDir, writeFiles } from "./helpers.js";

// registerBuildStep is process-wide and has no removal: the file's next in its process (a reused
// one) would build with this step, so it does nothing once the file ended.
describe("registered build steps", () => {
  const seen: { project: Project; outDir: string; manifestExisted: boolean }[] = [];
  let failWith: string | undefined;
  let ended = false;
  afterAll(() => {
    ended = true;
  });
  registerBuildStep(async (project, outDir) => {
    if (ended) return;
    seen.push({ project, outDir, manifestExisted: existsSync(join(outDir, "manifest.json")) });
    if (failWith) throw new Error(failWith);
    writeFileSync(join(outDir, "index.html"), `<title>${project.rootAgent.name}</title>`);
  });

  it("run after manifest.json with the validated project and the output folder", async () => {
    const dir = writeFiles(tempDir(), { "agents/bot.ts": BOT_AGENT });
    const r = await run(["build", dir]);
    expect(r.code).toBe(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ outDir: join(dir, ".agentsvc/build"), manifestExisted: true });
    expect(seen[0]!.project.rootAgent.name).toBe("bot");
    expect(readFileSync(join(dir, ".agentsvc/build/index.html"), "utf8")).toBe("<title>bot</title>");
  });

  it("fail the build with exit 1 and the step's message when a step throws", async () => {
    failWith = "page template missing";
    const dir = writeFiles(tempDir(), { "agents/bot.ts": BOT_AGENT });
    const r = await run(["build", dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("error build step failed: page template missing\n");
  });
});
