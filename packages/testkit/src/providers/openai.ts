// OpenAI Chat Completions on 127.0.0.1, and the OpenAI-compatible servers that add reasoning deltas.
// Wire format: https://platform.openai.com/docs/api-reference/chat/streaming (chunk objects,
// `stream_options.include_usage`: one last chunk with empty `choices` and `usage`, every earlier
// chunk `usage: null`; then `data: [DONE]`), https://platform.openai.com/docs/api-reference/chat/create
// (tool_calls deltas by `index`, finish_reason stop/length/tool_calls/content_filter),
// https://platform.openai.com/docs/guides/function-calling (a `tool` message answers a preceding
// assistant `tool_calls` id), errors: https://platform.openai.com/docs/guides/error-codes.
// Reasoning deltas: DeepSeek `reasoning_content` (https://api-docs.deepseek.com/guides/reasoning_model),
// vLLM `reasoning` (https://docs.vllm.ai/en/latest/features/reasoning_outputs.html); in DeepSeek's
// thinking mode an assistant message with tool calls must carry its `reasoning_content` back
// (https://api-docs.deepseek.com/guides/thinking_mode, tool calls). OpenAI itself
// streams no reasoning text on Chat Completions: only `completion_tokens_details.reasoning_tokens`.
// Cached input (`prompt_tokens_details.cached_tokens`): a prompt starting as an earlier one did
// (https://platform.openai.com/docs/guides/prompt-caching; prompt-cache.ts).
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
import { openAIFileRefusal } from "./file-parts.js";
import { OpenAIPromptCache } from "./prompt-cache.js";
import type { RecordedEvent, ScriptedAnswer, ScriptedFault } from "./script.js";

/** `openai`: no reasoning text; `deepseek`: `delta.reasoning_content`; `vllm`: `delta.reasoning`. */
export type OpenAIFlavor = "openai" | "deepseek" | "vllm";

export interface FakeOpenAIOptions extends ProviderFakeOptions {
  flavor?: OpenAIFlavor;
}

/** The key `FakeOpenAI` accepts unless told otherwise. */
export const OPENAI_TEST_KEY = "sk-test-agentsvc";

const error = (
  status: number,
  message: string,
  type: string,
  code: string | null,
  param: string | null = null,
) => ({
  status,
  body: { error: { message, type, param, code } },
});

interface SentMessage {
  role?: unknown;
  tool_call_id?: unknown;
  tool_calls?: { id?: unknown }[];
  reasoning_content?: unknown;
}

export class FakeOpenAI extends ProviderFake {
  readonly flavor: OpenAIFlavor;
  /** deepseek: ids of tool calls answered with reasoning, whose assistant message must bring it back. */
  readonly #reasoned = new Set<string>();
  /** Prompts answered before: a request repeating one's start reports it cached (prompt-cache.ts). */
  readonly #cache = new OpenAIPromptCache();

  private constructor(options: FakeOpenAIOptions) {
    super(options, OPENAI_TEST_KEY);
    this.flavor = options.flavor ?? "openai";
  }

  static async start(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
    const fake = new FakeOpenAI(options);
    await fake.listen();
    return fake;
  }

  get baseURL(): string {
    return `${this.url}/v1`;
  }

  protected route(method: string, url: URL, body: Record<string, unknown>): Route | undefined {
    if (method !== "POST" || url.pathname !== "/v1/chat/completions") return undefined;
    return { model: String(body.model ?? ""), stream: body.stream === true };
  }

  protected notFound(method: string, url: URL): Refusal {
    return error(404, `Invalid URL (${method} ${url.pathname})`, "invalid_request_error", null);
  }

  protected invalidJson(): Refusal {
    return error(
      400,
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
      "invalid_request_error",
      null,
    );
  }

  protected authRefusal(headers: Record<string, string>): Refusal | undefined {
    if (this.apiKey === false) return undefined;
    const auth = headers.authorization;
    if (!auth?.startsWith("Bearer "))
      return error(
        401,
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.",
        "invalid_request_error",
        null,
      );
    const key = auth.slice("Bearer ".length);
    if (sameKey(key, this.apiKey)) return undefined;
    return error(
      401,
      `Incorrect API key provided: ${key.slice(0, 3)}*****${key.slice(-4)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      "invalid_request_error",
      "invalid_api_key",
    );
  }

  protected historyRefusal(body: Record<string, unknown>): Refusal | undefined {
    if (typeof body.model !== "string" || body.model === "")
      return error(400, "you must provide a model parameter", "invalid_request_error", null);
    const messages = Array.isArray(body.messages) ? (body.messages as SentMessage[]) : [];
    if (messages.length === 0)
      return error(400, "[] is too short - 'messages'", "invalid_request_error", null, "messages");
    let open: { at: number; ids: Set<string> } | undefined;
    for (const [i, message] of messages.entries()) {
      const role = message.role;
      if (role === "tool") {
        if (!open?.ids.delete(String(message.tool_call_id)))
          return error(
            400,
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
            "invalid_request_error",
            null,
            `messages.[${i}].role`,
          );
        continue;
      }
      if (open && open.ids.size > 0) return unanswered(open);
      open = undefined;
      if (!["system", "developer", "user", "assistant", "function"].includes(String(role)))
        return error(
          400,
          `Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
          "invalid_request_error",
          "invalid_value",
          `messages.[${i}].role`,
        );
      if (role === "assistant" && Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
        open = { at: i, ids: new Set(message.tool_calls.map((call) => String(call.id))) };
        const reasoned = message.tool_calls.some((call) => this.#reasoned.has(String(call.id)));
        if (reasoned && (typeof message.reasoning_content !== "string" || message.reasoning_content === ""))
          return error(
            400,
            `Missing \`reasoning_content\` field in the assistant message at message index ${i}`,
            "invalid_request_error",
            null,
          );
      }
    }
    if (open && open.ids.size > 0) return unanswered(open);
    // OpenAI's own model rules; a vLLM or DeepSeek flavour takes the documented parts on any model.
    const files = openAIFileRefusal(this.flavor === "openai" ? body.model : undefined, messages);
    if (files) return error(...files);
    return undefined;
  }

  protected faultRefusal(fault: ScriptedFault): Refusal {
    switch (fault.kind) {
      case "rate_limited":
        return {
          ...error(
            429,
            "Rate limit reached for requests in organization org-agentsvc-test on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 1s. Visit https://platform.openai.com/account/rate-limits to learn more.",
            "requests",
            "rate_limit_exceeded",
          ),
          headers: {
            ...retryHeaders(fault),
            "x-ratelimit-limit-requests": "3",
            "x-ratelimit-remaining-requests": "0",
          },
        };
      case "context_length":
        return error(
          400,
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens. Please reduce the length of the messages.",
          "invalid_request_error",
          "context_length_exceeded",
          "messages",
        );
      case "server_error":
        return error(
          500,
          "The server had an error while processing your request. Sorry about that!",
          "server_error",
          null,
        );
      default:
        return error(
          503,
          "The engine is currently overloaded, please try again later.",
          "server_error",
          null,
        );
    }
  }

  protected commonHeaders(index: number): Record<string, string> {
    return { "x-request-id": `req_agentsvc_test_${index}` };
  }

  #chunk(route: Route, index: number, choice: Record<string, unknown> | undefined, usage?: unknown): string {
    return `data: ${JSON.stringify({
      id: `chatcmpl-test${index}`,
      object: "chat.completion.chunk",
      created: 1_764_000_000,
      model: route.model,
      system_fingerprint: "fp_agentsvc",
      choices: choice ? [{ index: 0, logprobs: null, finish_reason: null, ...choice }] : [],
      ...(usage !== undefined ? { usage } : {}),
    })}\n\n`;
  }

  /** Once per answered request: it remembers the prompt for the next ones. */
  #usage(answer: ScriptedAnswer, body: Record<string, unknown>, route: Route) {
    const fromCache = this.#cache.take(route.model, JSON.stringify(body.messages ?? ""));
    const prompt = answer.usage?.input ?? roughTokens(body.messages);
    // A scripted input is in the test's units, not the fake's: its cached share is scripted too.
    const cached = answer.usage?.cached ?? (answer.usage?.input === undefined ? fromCache : 0);
    const completion = answer.usage?.output ?? deltaCount(answer);
    return {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: answer.usage?.reasoning ?? answer.reasoning?.length ?? 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    };
  }

  #remember(id: string, answer: ScriptedAnswer): string {
    if (this.flavor === "deepseek" && answer.reasoning?.length) this.#reasoned.add(id);
    return id;
  }

  #reasoningField(): string | undefined {
    return this.flavor === "deepseek"
      ? "reasoning_content"
      : this.flavor === "vllm"
        ? "reasoning"
        : undefined;
  }

  protected frames(
    answer: ScriptedAnswer,
    body: Record<string, unknown>,
    route: Route,
    index: number,
  ): Frame[] {
    const withUsage =
      (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
    const usage = this.#usage(answer, body, route);
    // With include_usage every chunk carries `usage: null` except the last.
    const usageField = withUsage ? null : undefined;
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      this.#chunk(route, index, { delta, finish_reason: finish }, usageField);
    const frames: Frame[] = [
      { text: chunk({ role: "assistant", content: "", refusal: null }), token: false },
    ];
    const field = this.#reasoningField();
    if (field)
      for (const text of answer.reasoning ?? []) frames.push({ text: chunk({ [field]: text }), token: true });
    for (const text of answer.text ?? []) frames.push({ text: chunk({ content: text }), token: true });
    for (const [i, call] of (answer.toolCalls ?? []).entries()) {
      const id = call.id ?? `call_test${index}x${i}`;
      if (this.flavor === "deepseek" && answer.reasoning?.length) this.#reasoned.add(id);
      frames.push({
        text: chunk({
          tool_calls: [{ index: i, id, type: "function", function: { name: call.name, arguments: "" } }],
        }),
        token: false,
      });
      for (const fragment of call.arguments)
        frames.push({
          text: chunk({ tool_calls: [{ index: i, function: { arguments: fragment } }] }),
          token: true,
        });
    }
    frames.push({ text: chunk({}, finishOf(answer)), token: false });
    if (withUsage) frames.push({ text: this.#chunk(route, index, undefined, usage), token: false });
    frames.push({ text: "data: [DONE]\n\n", token: false });
    return frames;
  }

  protected json(
    answer: ScriptedAnswer,
    body: Record<string, unknown>,
    route: Route,
    index: number,
  ): unknown {
    const field = this.#reasoningField();
    const calls = (answer.toolCalls ?? []).map((call, i) => ({
      id: this.#remember(call.id ?? `call_test${index}x${i}`, answer),
      type: "function",
      function: { name: call.name, arguments: call.arguments.join("") },
    }));
    return {
      id: `chatcmpl-test${index}`,
      object: "chat.completion",
      created: 1_764_000_000,
      model: route.model,
      system_fingerprint: "fp_agentsvc",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: answer.text ? answer.text.join("") : null,
            refusal: null,
            ...(field && answer.reasoning ? { [field]: answer.reasoning.join("") } : {}),
            ...(calls.length > 0 ? { tool_calls: calls } : {}),
          },
          logprobs: null,
          finish_reason: finishOf(answer),
        },
      ],
      usage: this.#usage(answer, body, route),
    };
  }

  protected errorFrame(): string {
    return `data: ${JSON.stringify({
      error: {
        message: "The server had an error while processing your request. Sorry about that!",
        type: "server_error",
        param: null,
        code: null,
      },
    })}\n\n`;
  }

  protected malformedFrame(): string {
    return 'data: {"id":"chatcmpl-broken","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"\n\n';
  }

  protected replayFrame(event: RecordedEvent): string {
    return `data: ${typeof event.data === "string" ? event.data : JSON.stringify(event.data)}\n\n`;
  }
}

function unanswered(open: { at: number; ids: Set<string> }): Refusal {
  return error(
    400,
    `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open.ids].join(", ")}`,
    "invalid_request_error",
    null,
    `messages.[${open.at}].role`,
  );
}
