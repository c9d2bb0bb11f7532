// Anthropic Messages on 127.0.0.1. Wire format: https://docs.anthropic.com/en/docs/build-with-claude/streaming
// (message_start; per block content_block_start, deltas text_delta / input_json_delta / thinking_delta
// then signature_delta, content_block_stop; a redacted_thinking block whole in its start; message_delta
// with stop_reason and cumulative usage; message_stop; ping; `event: error` mid-stream, e.g.
// overloaded_error). Errors and their types per status: https://docs.anthropic.com/en/api/errors.
// History rules: https://docs.anthropic.com/en/api/messages (consecutive same-role turns are
// combined into one; only a final assistant message may be empty),
// https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use (every tool_use
// answered by a tool_result in the next user turn, tool_result blocks first),
// https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking (with thinking on, the
// last assistant turn of a tool loop starts with its thinking block, signature kept).
// Prompt caching (`cache_control` breakpoints; cache_read_input_tokens and cache_creation_input_tokens
// in message_start and message_delta, input_tokens the rest):
// https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching (prompt-cache.ts).
import {
  deltaCount,
  type Frame,
  finishOf,
  ProviderFake,
  type ProviderFakeOptions,
  type Refusal,
  type Route,
  retryHeaders,
  roughTokens,
  sameKey,
} from "./core.js";
import { anthropicFileRefusal } from "./file-parts.js";
import { AnthropicPromptCache } from "./prompt-cache.js";
import type { RecordedEvent, ScriptedAnswer, ScriptedFault, ScriptedFinish } from "./script.js";

/** The key `FakeAnthropic` accepts unless told otherwise. */
export const ANTHROPIC_TEST_KEY = "sk-ant-test-agentsvc";

const STOP_REASONS: Record<ScriptedFinish, string> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  content_filter: "refusal",
};

type Block = { type?: unknown; [key: string]: unknown };
interface Turn {
  role: unknown;
  /** Index of the turn's first message in the request. */
  at: number;
  blocks: { block: Block; message: number; position: number }[];
}

export class FakeAnthropic extends ProviderFake {
  /** Thinking text by the signature this fake issued for it; redacted data as `redacted:<data>`. */
  readonly #issued = new Map<string, string>();
  /** Prefixes a request asked cached (cache_control), read back by later ones (prompt-cache.ts). */
  readonly #cache = new AnthropicPromptCache();

  private constructor(options: ProviderFakeOptions) {
    super(options, ANTHROPIC_TEST_KEY);
  }

  static async start(options: ProviderFakeOptions = {}): Promise<FakeAnthropic> {
    const fake = new FakeAnthropic(options);
    await fake.listen();
    return fake;
  }

  get baseURL(): string {
    return `${this.url}/v1`;
  }

  #error(status: number, type: string, message: string, index = 0): Refusal {
    return { status, body: { type: "error", error: { type, message }, request_id: `req_test${index}` } };
  }

  protected route(method: string, url: URL, body: Record<string, unknown>): Route | undefined {
    if (method !== "POST" || url.pathname !== "/v1/messages") return undefined;
    return { model: String(body.model ?? ""), stream: body.stream === true };
  }

  protected notFound(): Refusal {
    return this.#error(404, "not_found_error", "Not found");
  }

  protected invalidJson(): Refusal {
    return this.#error(
      400,
      "invalid_request_error",
      "There was an issue with the format or content of your request.",
    );
  }

  protected authRefusal(headers: Record<string, string>): Refusal | undefined {
    if (this.apiKey !== false && !sameKey(headers["x-api-key"], this.apiKey))
      return this.#error(401, "authentication_error", "invalid x-api-key");
    if (!headers["anthropic-version"])
      return this.#error(400, "invalid_request_error", "anthropic-version: header is required");
    return undefined;
  }

  protected faultRefusal(fault: ScriptedFault): Refusal {
    switch (fault.kind) {
      case "rate_limited":
        return {
          ...this.#error(
            429,
            "rate_limit_error",
            "Number of request tokens has exceeded your per-minute rate limit (https://docs.anthropic.com/en/api/rate-limits); see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later.",
          ),
          headers: { ...retryHeaders(fault), "anthropic-ratelimit-requests-remaining": "0" },
        };
      case "context_length":
        return this.#error(
          400,
          "invalid_request_error",
          "prompt is too long: 215211 tokens > 200000 maximum",
        );
      case "server_error":
        return this.#error(500, "api_error", "Internal server error");
      case "unavailable":
        // Not in the errors page's table; what a proxy in front of the API answers.
        return this.#error(503, "api_error", "Service Unavailable");
      default:
        return this.#error(529, "overloaded_error", "Overloaded");
    }
  }

  protected historyRefusal(body: Record<string, unknown>): Refusal | undefined {
    const bad = (message: string) => this.#error(400, "invalid_request_error", message);
    if (typeof body.model !== "string") return bad("model: Field required");
    if (typeof body.max_tokens !== "number") return bad("max_tokens: Field required");
    const messages = Array.isArray(body.messages)
      ? (body.messages as { role?: unknown; content?: unknown }[])
      : [];
    if (messages.length === 0) return bad("messages: Field required");
    const turns: Turn[] = [];
    for (const [i, message] of messages.entries()) {
      if (message.role !== "user" && message.role !== "assistant")
        return bad(`messages.${i}.role: Input should be 'user' or 'assistant'`);
      const content = message.content;
      const empty = content === "" || (Array.isArray(content) && content.length === 0);
      if (empty && !(i === messages.length - 1 && message.role === "assistant"))
        return bad(
          `messages.${i}: all messages must have non-empty content except for the optional final assistant message`,
        );
      const blocks: Block[] =
        typeof content === "string" ? [{ type: "text", text: content }] : (content as Block[]);
      const last = turns.at(-1);
      const turn = last?.role === message.role ? last : { role: message.role, at: i, blocks: [] };
      if (turn !== last) turns.push(turn);
      turn.blocks.push(...blocks.map((block, position) => ({ block, message: i, position })));
    }
    const files = anthropicFileRefusal(messages);
    if (files) return bad(files);
    const thinkingType = (body.thinking as { type?: unknown } | undefined)?.type;
    const thinkingOn = thinkingType === "enabled" || thinkingType === "adaptive";
    for (const [t, turn] of turns.entries()) {
      const previous = turns[t - 1];
      if (turn.role === "user") {
        const asked = new Set(
          (previous?.blocks ?? []).filter((b) => b.block.type === "tool_use").map((b) => String(b.block.id)),
        );
        for (const { block, message, position } of turn.blocks) {
          if (block.type === "tool_result" && !asked.has(String(block.tool_use_id)))
            return bad(
              `messages.${message}.content.${position}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
            );
        }
        continue;
      }
      for (const { block, message, position } of turn.blocks) {
        if (block.type === "thinking") {
          if (typeof block.signature !== "string" || block.signature === "")
            return bad(`messages.${message}.content.${position}.thinking.signature: Field required`);
          if (this.#issued.get(block.signature) !== block.thinking)
            return bad(
              `messages.${message}.content.${position}: Invalid \`signature\` in \`thinking\` block`,
            );
        }
        if (block.type === "redacted_thinking" && !this.#issued.has(`redacted:${String(block.data)}`))
          return bad(
            `messages.${message}.content.${position}: Invalid \`data\` in \`redacted_thinking\` block`,
          );
      }
      const uses = turn.blocks.filter((b) => b.block.type === "tool_use").map((b) => String(b.block.id));
      if (uses.length === 0) continue;
      const next = turns[t + 1];
      // tool_result blocks come first in the next user turn; whatever follows them does not count.
      const answered = new Set<string>();
      for (const { block } of next?.blocks ?? []) {
        if (block.type !== "tool_result") break;
        answered.add(String(block.tool_use_id));
      }
      const missing = uses.filter((id) => !answered.has(id));
      if (missing.length > 0)
        return bad(
          `messages.${next?.at ?? turn.at + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        );
      // The tool loop in progress: the last assistant turn, answered by the request's final user turn.
      const lastAssistant = t === turns.length - 2;
      const first = turn.blocks[0]?.block;
      if (thinkingOn && lastAssistant && first?.type !== "thinking" && first?.type !== "redacted_thinking")
        return bad(
          `messages.${turn.at}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`,
        );
    }
    return undefined;
  }

  protected commonHeaders(index: number): Record<string, string> {
    return { "request-id": `req_test${index}` };
  }

  #blocks(answer: ScriptedAnswer, index: number) {
    const blocks: { start: Block; deltas: Block[] }[] = [];
    if (answer.redactedThinking !== undefined) {
      this.#issued.set(`redacted:${answer.redactedThinking}`, "");
      blocks.push({ start: { type: "redacted_thinking", data: answer.redactedThinking }, deltas: [] });
    }
    if (answer.reasoning) {
      const signature = answer.signature ?? `sig_test_${index}_${blocks.length}`;
      this.#issued.set(signature, answer.reasoning.join(""));
      blocks.push({
        start: { type: "thinking", thinking: "", signature: "" },
        deltas: [
          ...answer.reasoning.map((thinking) => ({ type: "thinking_delta", thinking })),
          { type: "signature_delta", signature },
        ],
      });
    }
    if (answer.text)
      blocks.push({
        start: { type: "text", text: "" },
        deltas: answer.text.map((text) => ({ type: "text_delta", text })),
      });
    for (const [i, call] of (answer.toolCalls ?? []).entries())
      blocks.push({
        start: { type: "tool_use", id: call.id ?? `toolu_test${index}x${i}`, name: call.name, input: {} },
        deltas: call.arguments.map((partial_json) => ({ type: "input_json_delta", partial_json })),
      });
    return blocks;
  }

  /** Once per answered request: it writes what the request asks cached (prompt-cache.ts). */
  #usage(answer: ScriptedAnswer, body: Record<string, unknown>, route: Route) {
    const cache = this.#cache.take(route.model, body);
    const scripted = answer.usage?.input;
    // A scripted input is in the test's units, not the fake's: its cached share is scripted too.
    const read = answer.usage?.cached ?? (scripted === undefined ? (cache?.read ?? 0) : 0);
    const written = answer.usage?.cacheWrite ?? (scripted === undefined ? (cache?.written ?? 0) : 0);
    const total = scripted ?? cache?.total ?? roughTokens(body.messages);
    return {
      input_tokens: Math.max(0, total - read - written),
      cache_creation_input_tokens: written,
      cache_read_input_tokens: read,
      output_tokens: answer.usage?.output ?? deltaCount(answer),
    };
  }

  protected frames(
    answer: ScriptedAnswer,
    body: Record<string, unknown>,
    route: Route,
    index: number,
  ): Frame[] {
    const event = (type: string, data: Record<string, unknown>, token = false): Frame => ({
      text: `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`,
      token,
    });
    const usage = this.#usage(answer, body, route);
    const frames: Frame[] = [
      event("message_start", {
        message: {
          id: `msg_test${index}`,
          type: "message",
          role: "assistant",
          content: [],
          model: route.model,
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 1 },
        },
      }),
    ];
    for (const [i, block] of this.#blocks(answer, index).entries()) {
      frames.push(event("content_block_start", { index: i, content_block: block.start }));
      if (i === 0) frames.push(event("ping", {}));
      for (const delta of block.deltas)
        frames.push(event("content_block_delta", { index: i, delta }, delta.type !== "signature_delta"));
      frames.push(event("content_block_stop", { index: i }));
    }
    if (frames.length === 1) frames.push(event("ping", {}));
    frames.push(
      event("message_delta", {
        delta: { stop_reason: STOP_REASONS[finishOf(answer)], stop_sequence: null },
        // Cumulative: the input side again, as message_start gave it.
        usage,
      }),
      event("message_stop", {}),
    );
    return frames;
  }

  protected json(
    answer: ScriptedAnswer,
    body: Record<string, unknown>,
    route: Route,
    index: number,
  ): unknown {
    const content = this.#blocks(answer, index).map(({ start, deltas }) => {
      switch (start.type) {
        case "thinking":
          return {
            type: "thinking",
            thinking: deltas.map((d) => d.thinking ?? "").join(""),
            signature: String(deltas.at(-1)?.signature),
          };
        case "text":
          return { type: "text", text: deltas.map((d) => d.text).join("") };
        case "tool_use":
          return { ...start, input: JSON.parse(deltas.map((d) => d.partial_json).join("") || "{}") };
        default:
          return start;
      }
    });
    return {
      id: `msg_test${index}`,
      type: "message",
      role: "assistant",
      model: route.model,
      content,
      stop_reason: STOP_REASONS[finishOf(answer)],
      stop_sequence: null,
      usage: this.#usage(answer, body, route),
    };
  }

  protected errorFrame(): string {
    return `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })}\n\n`;
  }

  protected malformedFrame(): string {
    return 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\n\n';
  }

  protected replayFrame(event: RecordedEvent): string {
    const data = typeof event.data === "string" ? event.data : JSON.stringify(event.data);
    return `${event.event ? `event: ${event.event}\n` : ""}data: ${data}\n\n`;
  }
}
