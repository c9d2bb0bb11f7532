// Model keys proved by listing the provider's models (free; never a generation). Facts:
//   OpenAI GET <baseURL>/models, Authorization: Bearer: https://platform.openai.com/docs/api-reference/models/list
//   Anthropic GET <baseURL>/models, x-api-key + anthropic-version: https://docs.anthropic.com/en/api/models-list
// Base URLs default as the AI SDK providers agent-core uses do (…/v1).
import { modelKeyVar, modelTarget, type Project } from "@agentsvc/config-schema";
import type { CheckResult } from "./gateway-checks.js";

const BASE: Record<string, string> = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com/v1",
};

function errorMessage(body: unknown): string {
  const error = body && typeof body === "object" ? (body as { error?: unknown }).error : undefined;
  const message = error && typeof error === "object" ? (error as { message?: unknown }).message : undefined;
  return typeof message === "string" ? message : "";
}

/** One check per distinct (provider, base URL, key variable) among the project's agents. */
export async function checkModelKeys(
  project: Project,
  env: Record<string, string | undefined>,
): Promise<CheckResult[]> {
  const seen = new Set<string>();
  const out: CheckResult[] = [];
  for (const agent of project.agents) {
    // Any form: a spec object, "openai/gpt-4o", { model: "anthropic/...", apiKeyEnvVar }.
    const model = (agent.definition as { model?: unknown }).model;
    const spec = modelTarget(model) ?? { provider: "", modelId: "" };
    const keyVar = modelKeyVar(model);
    const provider = spec.provider;
    if (!keyVar || !(provider in BASE || provider === "openai-compatible")) continue;
    const base = (spec.baseURL ?? BASE[provider] ?? "").replace(/\/+$/, "");
    const id = `${provider} ${base} ${keyVar}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const check = `${provider} key ${keyVar} (models list)`;
    const key = env[keyVar];
    if (!key) {
      out.push({
        check,
        status: "failed",
        detail: `${keyVar} is not set`,
        fix: `set ${keyVar} (${agent.file}: model.apiKeyEnvVar)`,
      });
      continue;
    }
    const headers: Record<string, string> =
      provider === "anthropic"
        ? { "x-api-key": key, "anthropic-version": "2023-06-01" }
        : { authorization: `Bearer ${key}` };
    try {
      const res = await fetch(`${base}/models`, { headers, signal: AbortSignal.timeout(10_000) });
      const text = await res.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      if (res.ok) {
        const count = Array.isArray((body as { data?: unknown } | undefined)?.data)
          ? (body as { data: unknown[] }).data.length
          : 0;
        out.push({ check, status: "ok", detail: `${count} models listed` });
      } else
        out.push({
          check,
          status: "failed",
          detail: `${res.status} ${errorMessage(body)}`.trim(),
          fix:
            res.status === 401 || res.status === 403
              ? `${keyVar} was refused by ${provider}: put a current API key in it (${agent.file}: model.apiKeyEnvVar)`
              : `${provider} answered ${res.status} at ${base}/models: check model.baseURL in ${agent.file}`,
        });
    } catch (error) {
      out.push({
        check,
        status: "failed",
        detail: (error as Error).message,
        fix: `${provider} did not answer at ${base}: check the network and model.baseURL in ${agent.file}`,
      });
    }
  }
  return out;
}
