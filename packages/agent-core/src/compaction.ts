import type { LanguageModelV4 } from "@ai-sdk/provider";
import { modelTarget } from "@agentsvc/config-schema/models";
import type { AgentModel, MemoryConfig, ModelSpec } from "./define.js";
import { AgentsvcError } from "./errors.js";
import type { CompactResult } from "./memory.js";
import type { Message } from "./messages.js";
import { classifyModelError } from "./model-errors.js";
import { admitModelCall, recordModelCall } from "./model-meter.js";
import { toUsage } from "./models/usage.js";
import { createModel, type CreateModelOptions } from "./models/resolve-model.js";

/** Turns older messages into one summary text. */
export type Summarizer = (messages: Message[]) => Promise<string>;

export const SUMMARY_PREFIX = "Summary of the earlier conversation: ";

export interface CompactionPlan {
  /** Older messages to replace by a summary (empty: nothing to do). */
  summarize: Message[];
  /** The most recent messages, kept as they are. Never starts with a tool result. */
  keep: Message[];
}

/**
 * Splits history for compaction, keeping about `keepRecent` recent messages. The cut moves
 * earlier when it would separate an assistant tool call from its tool results, so the kept part
 * never starts with a tool result (providers reject a result without its call).
 */
export function planCompaction(messages: Message[], keepRecent: number): CompactionPlan {
  const keepCount = Math.max(0, Math.floor(keepRecent));
  let cut = messages.length - keepCount;
  if (cut <= 0) return { summarize: [], keep: [...messages] };
  while (cut > 0 && messages[cut]?.role === "tool") cut--;
  return { summarize: messages.slice(0, cut), keep: messages.slice(cut) };
}

export function summaryMessage(summary: string): Message {
  return { role: "system", content: `${SUMMARY_PREFIX}${summary}` };
}

/** Plans, summarizes and returns the compacted history (`[summary, ...keep]`) with the counts. */
export async function compactMessages(
  messages: Message[],
  keepRecent: number,
  summarize: Summarizer | undefined,
): Promise<{ messages: Message[]; result: CompactResult; cut: number }> {
  const before = messages.length;
  const plan = planCompaction(messages, keepRecent);
  if (!summarize || plan.summarize.length === 0) {
    return { messages, result: { compacted: false, before, after: before }, cut: 0 };
  }
  const text = await summarize(plan.summarize);
  const next = [summaryMessage(text), ...plan.keep];
  return {
    messages: next,
    result: { compacted: true, before, after: next.length },
    cut: plan.summarize.length,
  };
}

function clip(text: string, limit: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
}

function json(value: unknown): string {
  try {
    return typeof value === "string" ? value : JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** A plain-text transcript of messages, the input a summary model reads. */
export function transcript(messages: Message[]): string {
  return messages
    .map((m) => {
      switch (m.role) {
        case "system":
          return `System: ${m.content}`;
        case "user":
          return `User: ${m.content}`;
        case "assistant": {
          const calls = (m.toolCalls ?? [])
            .map((c) => `[called ${c.name} with ${json(c.arguments)}]`)
            .join(" ");
          return `Assistant: ${[m.content, calls].filter(Boolean).join(" ")}`;
        }
        default:
          return `Tool ${m.toolName}${m.isError ? " (error)" : ""}: ${json(m.result)}`;
      }
    })
    .join("\n");
}

/** The deterministic summary of the demo provider: the user's messages, quoted and clipped. */
export function demoSummary(messages: Message[]): string {
  const said = messages.filter((m) => m.role === "user").map((m) => `"${clip(m.content, 80)}"`);
  const tools = messages.filter((m) => m.role === "tool").length;
  const parts = [`${messages.length} earlier messages (demo summarizer)`];
  if (said.length > 0) parts.push(`the user said ${said.join(", ")}`);
  if (tools > 0) parts.push(`${tools} tool result${tools === 1 ? "" : "s"}`);
  return clip(parts.join("; "), 1000);
}

const SUMMARY_INSTRUCTIONS =
  "Summarize the conversation below for your own later reference. Keep names, numbers, decisions, open questions and tool results that still matter. Answer with the summary only.";

async function summarizeWithModel(
  model: LanguageModelV4,
  provider: string,
  messages: Message[],
): Promise<string> {
  // A summary is a model call like any other: within the run's budget, and in the ledger.
  const refused = await admitModelCall("compaction");
  if (refused) throw new AgentsvcError(refused.code, refused.message, 429);
  const facts = { provider, modelId: model.modelId };
  let result: Awaited<ReturnType<LanguageModelV4["doGenerate"]>>;
  try {
    result = await model.doGenerate({
      prompt: [
        { role: "system", content: SUMMARY_INSTRUCTIONS },
        { role: "user", content: [{ type: "text", text: transcript(messages) }] },
      ],
    });
  } catch (error) {
    recordModelCall("compaction", { ...facts, outcome: classifyModelError(error).error.code, usage: {} });
    throw error;
  }
  recordModelCall("compaction", { ...facts, outcome: "ok", usage: toUsage(result.usage) });
  const text = result.content
    .flatMap((part) => (part.type === "text" ? [part.text] : []))
    .join("")
    .trim();
  if (!text)
    throw new AgentsvcError("summary_failed", `the summary model ${model.modelId} returned no text`, 502);
  return text;
}

/**
 * The summarizer a memory config asks for, or undefined when `summaryProvider` or `summaryModel`
 * is missing (compaction is then a no-op). Provider and model come only from config; the API key
 * and base URL are shared with the agent's model when it uses the same provider.
 */
export function createSummarizer(
  config: MemoryConfig | undefined,
  agentModel: AgentModel,
  options: CreateModelOptions = {},
): Summarizer | undefined {
  const provider = config?.summaryProvider;
  const modelName = config?.summaryModel;
  if (!provider || !modelName) return undefined;
  if (provider === "demo") return async (messages) => demoSummary(messages);
  // The agent's own model in any form (a string, a spec, { model }); an instance shares nothing.
  const target = modelTarget(agentModel);
  const same = target?.provider === provider ? target : undefined;
  let spec: ModelSpec;
  if (provider === "openai-compatible") {
    if (!same) {
      throw new AgentsvcError(
        "invalid_memory",
        `memory.summaryProvider: "openai-compatible" needs the agent's model to be openai-compatible too, for its baseURL (got provider "${target?.provider ?? "an instance"}")`,
        500,
      );
    }
    spec = {
      provider,
      model: modelName,
      baseURL: same.baseURL ?? "",
      ...(same.apiKeyEnvVar ? { apiKeyEnvVar: same.apiKeyEnvVar } : {}),
      ...(typeof (agentModel as { name?: unknown }).name === "string"
        ? { name: (agentModel as { name: string }).name }
        : {}),
    };
  } else {
    spec = {
      provider,
      model: modelName,
      ...(same ? { apiKeyEnvVar: same.apiKeyEnvVar, baseURL: same.baseURL } : {}),
    };
  }
  const model = createModel(spec, options);
  return (messages) => summarizeWithModel(model, provider, messages);
}
