import type { BuildWarning } from "./issues.js";
import type { Project } from "./types.js";

// The variables agent-core's createModel reads when a spec names none; openai-compatible needs a
// key only when `apiKeyEnvVar` is given.
const DEFAULT_KEY_VARS: Record<string, string> = { openai: "OPENAI_API_KEY", anthropic: "ANTHROPIC_API_KEY" };

interface ModelLike {
  provider?: unknown;
  model?: unknown;
  apiKeyEnvVar?: unknown;
}

/** The API-key variable a model spec must find set at start-up, or undefined (demo, keyless). */
export function modelKeyVar(model: ModelLike): string | undefined {
  if (typeof model.apiKeyEnvVar === "string") return model.apiKeyEnvVar;
  return typeof model.provider === "string" ? DEFAULT_KEY_VARS[model.provider] : undefined;
}

/**
 * One warning per agent whose model's API-key variable is unset in `env`: `check` runs where the
 * secret may legitimately be absent (a laptop, CI), but `start` fails on it, so say so now.
 */
export function missingModelKeys(project: Project, env: Record<string, string | undefined>): BuildWarning[] {
  const out: BuildWarning[] = [];
  for (const agent of project.agents) {
    const model = ((agent.definition as { model?: ModelLike }).model ?? {}) as ModelLike;
    const name = modelKeyVar(model);
    if (!name || env[name]) continue;
    out.push({
      file: agent.file,
      path: "model.apiKeyEnvVar",
      message: `environment variable ${name} is not set: \`agentsvc start\` fails until it holds the ${String(model.provider)} API key for model "${String(model.model)}"`,
    });
  }
  return out;
}
