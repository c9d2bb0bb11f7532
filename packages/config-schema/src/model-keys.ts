import type { BuildWarning } from "./issues.js";
import { modelKeyVars, modelsOf, modelTarget } from "./model-providers.js";
import type { Project } from "./types.js";

/** The API-key variable a model must find set at start-up, or undefined (demo, keyless, an instance). */
export function modelKeyVar(model: unknown): string | undefined {
  return modelKeyVars(model)[0];
}

/**
 * One warning per unset variable an agent's model needs (its fallbacks' too): `check` runs where
 * the secret may legitimately be absent (a laptop, CI), but `start` fails on it, so say so now.
 */
export function missingModelKeys(project: Project, env: Record<string, string | undefined>): BuildWarning[] {
  const out: BuildWarning[] = [];
  for (const agent of project.agents) {
    for (const [path, m] of modelsOf((agent.definition as { model?: unknown }).model)) {
      const target = modelTarget(m);
      for (const name of modelKeyVars(m, env)) {
        if (env[name]) continue;
        out.push({
          file: agent.file,
          path: `${path}.apiKeyEnvVar`,
          message: `environment variable ${name} is not set: \`agentsvc start\` fails until it holds what the ${String(target?.provider)} model "${String(target?.modelId)}" needs`,
        });
      }
    }
  }
  return out;
}
