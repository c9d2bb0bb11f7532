import type { WebuiExposure } from "@agentsvc/config-schema";
import { writePage } from "@agentsvc/webui-page";
import type { BuildStep } from "./build-steps.js";

/** Writes `<out>/<path>/index.html` for every webui entry: one self-contained page each. */
export const webuiPageStep: BuildStep = async (project, outDir) => {
  for (const entry of project.exposures) {
    if (entry.exposes !== "webui") continue;
    const web = entry as WebuiExposure;
    await writePage(outDir, web, web.themeCss ?? "");
  }
};
