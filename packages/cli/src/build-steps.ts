import type { Project } from "@agentsvc/config-schema";
import { webuiPageStep } from "./page-step.js";

/**
 * A build step runs after manifest.json is written, with the validated project and the output
 * folder. Steps run one after another in registration order; a step that throws fails the build.
 */
export type BuildStep = (project: Project, outDir: string) => Promise<void>;

const registered: BuildStep[] = [];

/**
 * Adds a step to every `agentsvc build` of this process. Packages that generate output (the webui
 * page) register here; a step added to DEFAULT_STEPS below runs for every user of the CLI.
 */
export function registerBuildStep(step: BuildStep): void {
  registered.push(step);
}

// Steps every build runs, before registered ones.
const DEFAULT_STEPS: BuildStep[] = [webuiPageStep];

export function buildSteps(): BuildStep[] {
  return [...DEFAULT_STEPS, ...registered];
}
