import type { WebuiExposure } from "@agentsvc/config-schema";
import type { BuildStep } from "./build-steps.js";

/** Writes `<out>/<path>/index.html` for every webui entry: one self-contained page each. */
export const webuiPageStep: BuildStep = async (project, outDir) => {
  if (!project.exposures.some((e) => e.exposes === "webui")) return;
  // The page renderer (and its inlined client bundle) loads only for a project that has a page.
  const { writePage } = await import("@agentsvc/webui-page");
  for (const entry of project.exposures) {
    if (entry.exposes !== "webui") continue;
    const web = entry as WebuiExposure;
    await writePage(outDir, web, web.themeCss ?? "");
  }
};
