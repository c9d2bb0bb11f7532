// Google Gemini (Generative Language API v1beta) on 127.0.0.1.
// Wire format: https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
// (`POST /v1beta/models/{model}:streamGenerateContent?alt=sse`: each event one
// GenerateContentResponse, candidates[].content.parts[] with text, `thought: true` parts,
// whole functionCall parts; finishReason STOP / MAX_TOKENS / SAFETY (#FinishReason); usageMetadata),
// key in `x-goog-api-key` or `?key=` (https://ai.google.dev/gemini-api/docs/api-key),
// errors as google.rpc.Status `{ error: { code, message, status } }` with the statuses of
// https://ai.google.dev/gemini-api/docs/troubleshooting (an invalid key is 400 INVALID_ARGUMENT
// with reason API_KEY_INVALID, not 401; a missing one 403 PERMISSION_DENIED), function-call turn
// order: https://ai.google.dev/gemini-api/docs/function-calling (a functionResponse turn follows
// its functionCall turn, one response part per call); thought signatures:
// https://ai.google.dev/gemini-api/docs/thought-signatures (the first functionCall part of a
// response carries a `thoughtSignature`; for Gemini 3 models every function-call turn of the
// current turn must send it back, or 400).
import {
  deltaCount,
  type Frame,
  finishOf,
  ProviderFake,
  type ProviderFakeOptions,
  type Refusal,
  type Route,
  roughTokens,
  sameKey,
} from "./core.js";
import { geminiFileRefusal } from "./file-parts.js";
import type { RecordedEvent, ScriptedAnswer, ScriptedFault, ScriptedFinish } from "./script.js";

/** The stand-ins Google documents for a history without real signatures (skips validation). */
const DUMMY_SIGNATURES = ["context_engineering_is_the_way_to_go", "skip_thought_signature_validator"];

/** The key `FakeGemini` accepts unless told otherwise. */
export const GEMINI_TEST_KEY = "AIza-test-agentsvc";

const FINISH: Record<ScriptedFinish, string> = {
  stop: "STOP",
  length: "MAX_TOKENS",
  tool_calls: "STOP",
  content_filter: "SAFETY",
};

const status = (code: number, state: string, message: string, details?: unknown[]): Refusal => ({
  status: code,
  body: { error: { code, message, status: state, ...(details ? { details } : {}) } },
});

type Part = { text?: unknown; functionCall?: unknown; functionResponse?: unknown; [key: string]: unknown };

export class FakeGemini extends ProviderFake {
  /** Thought signatures this fake sent on function calls. */
  readonly #signatures = new Set<string>();
  private constructor(options: ProviderFakeOptions) {
    super(options, GEMINI_TEST_KEY);
  }

  static async start(options: ProviderFakeOptions = {}): Promise<FakeGemini> {
    const fake = new FakeGemini(options);
    await fake.listen();
    return fake;
  }

  /** What `@ai-sdk/google`'s `baseURL` takes. */
  get baseURL(): string {
    return `${this.url}/v1beta`;
  }

  protected route(method: string, url: URL): Route | undefined {
    const match = /^\/v1beta\/models\/([^/:]+):(streamGenerateContent|generateContent)$/.exec(url.pathname);
    if (method !== "POST" || !match) return undefined;
    const streamed = match[2] === "streamGenerateContent";
    const sse = streamed && url.searchParams.get("alt") === "sse";
    return { model: decodeURIComponent(match[1] as string), stream: sse, jsonArray: streamed && !sse };
  }

  protected notFound(method: string, url: URL): Refusal {
    return status(
      404,
      "NOT_FOUND",
      `The requested URL ${url.pathname} was not found on this server (${method}).`,
    );
  }

  protected invalidJson(): Refusal {
    return status(400, "INVALID_ARGUMENT", "Invalid JSON payload received. Unexpected token.");
  }

  protected authRefusal(headers: Record<string, string>, url: URL): Refusal | undefined {
    if (this.apiKey === false) return undefined;
    const key = headers["x-goog-api-key"] ?? url.searchParams.get("key") ?? undefined;
    if (key === undefined)
      return status(
        403,
        "PERMISSION_DENIED",
        "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
      );
    if (sameKey(key, this.apiKey)) return undefined;
    return status(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", [
      {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        reason: "API_KEY_INVALID",
        domain: "googleapis.com",
        metadata: { service: "generativelanguage.googleapis.com" },
      },
    ]);
  }

  protected faultRefusal(fault: ScriptedFault): Refusal {
    switch (fault.kind) {
      case "rate_limited": {
        const seconds =
          fault.retryAfterSeconds ?? (fault.retryAfterMs !== undefined ? fault.retryAfterMs / 1000 : 1);
        const refusal = status(
          429,
          "RESOURCE_EXHAUSTED",
          "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.",
          [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${seconds}s` }],
        );
        // Google states the delay in the body (RetryInfo); headers only when a test scripts them.
        const headers: Record<string, string> = {};
        if (fault.retryAfterSeconds !== undefined) headers["retry-after"] = String(fault.retryAfterSeconds);
        if (fault.retryAfterMs !== undefined) headers["retry-after-ms"] = String(fault.retryAfterMs);
        return { ...refusal, headers };
      }
      case "context_length":
        return status(
          400,
          "INVALID_ARGUMENT",
          "The input token count (1048990) exceeds the maximum number of tokens allowed (1048576).",
        );
      case "server_error":
        return status(
          500,
          "INTERNAL",
          "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
        );
      default:
        return status(503, "UNAVAILABLE", "The model is overloaded. Please try again later.");
    }
  }

  protected historyRefusal(body: Record<string, unknown>, route: Route): Refusal | undefined {
    const files = geminiFileRefusal(
      Array.isArray(body.contents) ? body.contents : [],
      Buffer.byteLength(JSON.stringify(body)),
    );
    if (files) return status(400, "INVALID_ARGUMENT", files);
    return this.#orderRefusal(body) ?? this.#signatureRefusal(body, route);
  }

  /** Gemini 3: the function-call turns since the last user text must each send their signature back. */
  #signatureRefusal(body: Record<string, unknown>, route: Route): Refusal | undefined {
    if (!route.model.startsWith("gemini-3")) return undefined;
    const contents = body.contents as { role?: unknown; parts: Part[] }[];
    const lastText = contents.findLastIndex(
      (c) => c.role !== "model" && c.parts.some((p) => p.functionResponse === undefined),
    );
    for (const [position, content] of contents.entries()) {
      if (position < lastText || content.role !== "model") continue;
      const first = content.parts.find((p) => p.functionCall !== undefined);
      if (!first) continue;
      const signature = typeof first.thoughtSignature === "string" ? first.thoughtSignature : "";
      if (this.#signatures.has(signature) || DUMMY_SIGNATURES.includes(signature)) continue;
      const name = (first.functionCall as { name?: unknown }).name;
      return status(
        400,
        "INVALID_ARGUMENT",
        `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${String(name)}\` , position ${position + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
      );
    }
    return undefined;
  }

  #orderRefusal(body: Record<string, unknown>): Refusal | undefined {
    const bad = (message: string) => status(400, "INVALID_ARGUMENT", message);
    const contents = Array.isArray(body.contents)
      ? (body.contents as { role?: unknown; parts?: Part[] }[])
      : [];
    if (contents.length === 0) return bad("* GenerateContentRequest.contents: contents is not specified\n");
    let calls = 0; // functionCall parts of the previous turn, when it was a function-call turn
    let previous: "user" | "model" | "response" | undefined;
    for (const content of contents) {
      const role = content.role ?? "user";
      if (role !== "user" && role !== "model") return bad("Please use a valid role: user, model.");
      const parts = Array.isArray(content.parts) ? content.parts : [];
      if (parts.length === 0)
        return bad("* GenerateContentRequest.contents.parts: contents.parts must not be empty.\n");
      const callParts = parts.filter((p) => p.functionCall !== undefined).length;
      const responseParts = parts.filter((p) => p.functionResponse !== undefined).length;
      if (calls > 0 && (role !== "user" || responseParts === 0))
        return bad("Please ensure that function response turn comes immediately after a function call turn.");
      if (responseParts > 0) {
        if (calls === 0)
          return bad(
            "Please ensure that function response turn comes immediately after a function call turn.",
          );
        if (responseParts !== calls)
          return bad(
            "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
          );
      }
      if (callParts > 0 && previous === "model")
        return bad(
          "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
        );
      calls = role === "model" ? callParts : 0;
      previous = responseParts > 0 ? "response" : (role as "user" | "model");
    }
    if (calls > 0)
      return bad("Please ensure that function response turn comes immediately after a function call turn.");
    return undefined;
  }

  protected commonHeaders(): Record<string, string> {
    return {};
  }

  #usage(answer: ScriptedAnswer, body: Record<string, unknown>) {
    const prompt = answer.usage?.input ?? roughTokens(body.contents);
    const thoughts = answer.usage?.reasoning ?? answer.reasoning?.length ?? 0;
    const candidates = answer.usage?.output ?? deltaCount(answer) - (answer.reasoning?.length ?? 0);
    return {
      promptTokenCount: prompt,
      candidatesTokenCount: candidates,
      totalTokenCount: prompt + candidates + thoughts,
      ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
      promptTokensDetails: [{ modality: "TEXT", tokenCount: prompt }],
    };
  }

  #parts(answer: ScriptedAnswer, index: number): { part: Part; token: boolean }[] {
    const signature = `sig-gemini-${index}`;
    if (answer.toolCalls?.length) this.#signatures.add(signature);
    return [
      ...(answer.reasoning ?? []).map((text) => ({ part: { text, thought: true }, token: true })),
      ...(answer.text ?? []).map((text) => ({ part: { text }, token: true })),
      // Gemini sends a function call whole, never as argument fragments; the first one signed.
      ...(answer.toolCalls ?? []).map((call, i) => ({
        part: {
          functionCall: { name: call.name, args: JSON.parse(call.arguments.join("") || "{}") },
          ...(i === 0 ? { thoughtSignature: signature } : {}),
        },
        token: true,
      })),
    ];
  }

  #response(route: Route, index: number, parts: Part[], extra: Record<string, unknown>) {
    return {
      candidates: [{ content: { parts, role: "model" }, index: 0, ...(extra.candidate as object) }],
      ...(extra.usage ? { usageMetadata: extra.usage } : {}),
      modelVersion: route.model,
      responseId: `resp-test-${index}`,
    };
  }

  protected frames(
    answer: ScriptedAnswer,
    body: Record<string, unknown>,
    route: Route,
    index: number,
  ): Frame[] {
    const parts = this.#parts(answer, index);
    const usage = this.#usage(answer, body);
    const frame = (data: unknown, token: boolean): Frame => ({
      text: `data: ${JSON.stringify(data)}\r\n\r\n`,
      token,
    });
    if (parts.length === 0) parts.push({ part: { text: "" }, token: false });
    // The finish reason and the full usage ride on the last chunk; earlier ones carry the prompt count.
    return parts.map(({ part, token }, i) =>
      frame(
        this.#response(route, index, [part], {
          candidate: i === parts.length - 1 ? { finishReason: FINISH[finishOf(answer)] } : {},
          usage:
            i === parts.length - 1
              ? usage
              : { promptTokenCount: usage.promptTokenCount, totalTokenCount: usage.promptTokenCount },
        }),
        token,
      ),
    );
  }

  protected json(
    answer: ScriptedAnswer,
    body: Record<string, unknown>,
    route: Route,
    index: number,
  ): unknown {
    const response = this.#response(
      route,
      index,
      this.#parts(answer, index).map((p) => p.part),
      { candidate: { finishReason: FINISH[finishOf(answer)] }, usage: this.#usage(answer, body) },
    );
    // A streamGenerateContent without alt=sse answers a JSON array of responses.
    return route.jsonArray ? [response] : response;
  }

  protected errorFrame(): string {
    return `data: ${JSON.stringify({ error: { code: 503, message: "The model is overloaded. Please try again later.", status: "UNAVAILABLE" } })}\r\n\r\n`;
  }

  protected malformedFrame(): string {
    return 'data: {"candidates": [{"content": {"parts": [{"text": "\r\n\r\n';
  }

  protected replayFrame(event: RecordedEvent): string {
    return `data: ${typeof event.data === "string" ? event.data : JSON.stringify(event.data)}\r\n\r\n`;
  }
}
