// The provider packages an agent's models need that the project lacks: `check` names them all with
// one install command, where `start` stops at the first. openai, anthropic and the OpenAI-compatible
// ones ship with agentsvc; the others (google, azure, amazon-bedrock, ...) are installed per project.
import {
  type BuildError,
  MODEL_PROVIDERS,
  type ModelProviderInfo,
  modelsOf,
  modelTarget,
  type Project,
} from "@agentsvc/config-schema";

export async function missingProviderErrors(
  project: Project,
): Promise<{ errors: BuildError[]; install?: string }> {
  const needed: { file: string; path: string; provider: string; pkg: string }[] = [];
  for (const agent of project.agents) {
    for (const [path, model] of modelsOf((agent.definition as { model?: unknown }).model)) {
      const target = modelTarget(model);
      const info = target && (MODEL_PROVIDERS as Record<string, ModelProviderInfo>)[target.provider];
      if (!target || !info || info.bundled) continue;
      needed.push({ file: agent.file, path, provider: target.provider, pkg: info.package });
    }
  }
  if (needed.length === 0) return { errors: [] };
  const { providerPackageInstalled } = await import("@agentsvc/agent-core");
  const missing = needed.filter((n) => !providerPackageInstalled(n.pkg, project.root));
  if (missing.length === 0) return { errors: [] };
  const errors = missing.map((n) => ({
    file: n.file,
    path: n.path,
    message: `provider "${n.provider}" needs the package ${n.pkg}, which is not installed`,
  }));
  const { installCommand } = await import("@agentsvc/server");
  return { errors, install: installCommand(project.root, [...new Set(missing.map((n) => n.pkg))].join(" ")) };
}
