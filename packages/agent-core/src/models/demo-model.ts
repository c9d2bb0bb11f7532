import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FunctionTool,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4FinishReason,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import type { DemoStep } from "../define.js";
import { defaultDemoStep } from "./demo-default-script.js";

/** How the demo model names itself wherever a model name shows (info, chunks, logs). */
export const DEMO_MODEL_ID = "agentsvc-demo (scripted demo model)";
const DEMO_PROVIDER = "agentsvc-demo";
/** providerOptions key the run loop uses to tell the demo model which model call of the turn this is. */
export const DEMO_STEP_OPTION = "agentsvcDemo";

export interface DemoModelOptions {
  script?: DemoStep[];
  /** Pause before each streamed token, to make cancel and steer observable. Default 0. */
  tokenDelayMs?: number;
}

const DEMO_MARK = Symbol.for("agentsvc.demoModel");

export function isDemoModel(model: unknown): boolean {
  if (typeof model !== "object" || model === null) return false;
  if ((model as { provider?: unknown }).provider === "demo") return true; // a ModelSpec
  return (model as Record<symbol, unknown>)[DEMO_MARK] === true;
}

function tokens(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

function abortError(signal: AbortSignal | undefined): unknown {
  return signal?.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

/** Model call index within the turn: from the run loop when given, else assistant messages since the last user message. */
function stepIndex(options: LanguageModelV4CallOptions): number {
  const given = options.providerOptions?.[DEMO_STEP_OPTION]?.step;
  if (typeof given === "number" && Number.isInteger(given) && given >= 0) return given;
  let count = 0;
  for (let i = options.prompt.length - 1; i >= 0; i--) {
    const role = options.prompt[i]?.role;
    if (role === "user") break;
    if (role === "assistant") count++;
  }
  return count;
}

/**
 * A short, deterministic digest of the prompt, for ids (`demo_<digest>`, `call_<digest>_<n>`):
 * the same history always gives the same ids, another history (almost surely) other ones. Two
 * 32-bit FNV-1a lanes over the prompt's values, walked in JSON.stringify order without building
 * the string: serializing and sha256-hashing the whole history on every call was a visible
 * share of a demo turn's CPU, and the ids need no cryptographic strength.
 */
export function promptDigest(prompt: LanguageModelV4Prompt): string {
  const h = { a: 0x811c9dc5, b: 0x01000193 ^ 0x5bd1e995 };
  mixValue(h, prompt);
  return (hex8(h.a) + hex8(h.b)).slice(0, 12);
}

type Lanes = { a: number; b: number };

function mixText(h: Lanes, text: string): void {
  let { a, b } = h;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  h.a = a;
  h.b = b;
}

/** Tags keep `["ab"]` and `["a","b"]` (or `1` and `"1"`) apart. */
function mixValue(h: Lanes, value: unknown): void {
  if (typeof value === "string") {
    mixText(h, "s");
    mixText(h, value);
    mixText(h, "\u0000");
  } else if (Array.isArray(value)) {
    mixText(h, "[");
    for (const item of value) mixValue(h, item);
    mixText(h, "]");
  } else if (typeof value === "object" && value !== null) {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") {
      // As JSON.stringify does (a URL part becomes its href).
      mixValue(h, toJSON.call(value));
      return;
    }
    mixText(h, "{");
    for (const key of Object.keys(value)) {
      const v = (value as Record<string, unknown>)[key];
      if (v === undefined || typeof v === "function") continue;
      mixValue(h, key);
      mixValue(h, v);
    }
    mixText(h, "}");
  } else if (value !== undefined) {
    mixText(h, `${typeof value}:${String(value)}\u0000`);
  }
}

function hex8(n: number): string {
  return (n >>> 0).toString(16).padStart(8, "0");
}

/**
 * A deterministic, offline LanguageModelV4. It streams reasoning, then text, then tool calls of
 * one step. With a `script`, model call i of a turn plays `script[i]`; without one it follows
 * `defaultDemoStep`. It is a demo: its model id says so everywhere it shows.
 */
export class DemoLanguageModel implements LanguageModelV4 {
  readonly specificationVersion = "v4";
  readonly provider = DEMO_PROVIDER;
  readonly modelId = DEMO_MODEL_ID;
  readonly supportedUrls = {};
  readonly [DEMO_MARK] = true;

  constructor(private readonly options: DemoModelOptions = {}) {}

  /** The step this call plays; exposed for tests and docs. */
  planStep(options: LanguageModelV4CallOptions): DemoStep {
    const tools = (options.tools ?? []).filter(
      (t): t is LanguageModelV4FunctionTool => t.type === "function",
    );
    const script = this.options.script;
    if (!script) return defaultDemoStep(options.prompt, tools);
    const index = stepIndex(options);
    return script[index] ?? { text: `(The demo script has no step ${index + 1}; it has ${script.length}.)` };
  }

  async doGenerate(options: LanguageModelV4CallOptions) {
    const step = this.planStep(options);
    const content: LanguageModelV4Content[] = [];
    if (step.reasoning) content.push({ type: "reasoning", text: step.reasoning });
    if (step.text) content.push({ type: "text", text: step.text });
    const digest = promptDigest(options.prompt);
    (step.toolCalls ?? []).forEach((call, i) => {
      content.push({
        type: "tool-call",
        toolCallId: `call_${digest}_${i}`,
        toolName: call.name,
        input: JSON.stringify(call.arguments ?? {}),
      });
    });
    return {
      content,
      finishReason: finishReason(step),
      usage: NO_USAGE,
      warnings: [],
    };
  }

  async doStream(options: LanguageModelV4CallOptions) {
    const signal = options.abortSignal;
    if (signal?.aborted) throw abortError(signal);
    const step = this.planStep(options);
    const delay = this.options.tokenDelayMs ?? 0;
    const digest = promptDigest(options.prompt);
    const parts = this.parts(step, digest);
    if (delay <= 0) return { stream: queuedStream(parts, signal) };
    let i = 0;
    // One abort listener for the whole stream (not one per token): a slow stream spends most of
    // its life waiting here, and an EventTarget listener per token was most of what it allocated.
    let timer: NodeJS.Timeout | undefined;
    let rejectPause: ((error: unknown) => void) | undefined;
    const endPause = () => {
      clearTimeout(timer);
      timer = undefined;
      rejectPause = undefined;
    };
    const onAbort = () => {
      const reject = rejectPause;
      endPause();
      reject?.(abortError(signal));
    };
    const stop = () => signal?.removeEventListener("abort", onAbort);
    const pause = () =>
      new Promise<void>((resolve, reject) => {
        rejectPause = reject;
        timer = setTimeout(() => {
          timer = undefined;
          rejectPause = undefined;
          resolve();
        }, delay);
      });
    if (delay > 0) signal?.addEventListener("abort", onAbort, { once: true });
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      async pull(controller) {
        try {
          const part = parts[i++];
          if (!part) {
            stop();
            return controller.close();
          }
          const isToken =
            part.type === "text-delta" || part.type === "reasoning-delta" || part.type === "tool-input-delta";
          if (signal?.aborted) throw abortError(signal);
          if (isToken && delay > 0) await pause();
          controller.enqueue(part);
        } catch (error) {
          stop();
          controller.error(error);
        }
      },
      cancel() {
        stop();
        endPause();
      },
    });
    return { stream };
  }

  private parts(step: DemoStep, digest: string): LanguageModelV4StreamPart[] {
    const out: LanguageModelV4StreamPart[] = [
      { type: "stream-start", warnings: [] },
      { type: "response-metadata", id: `demo_${digest}`, modelId: DEMO_MODEL_ID },
    ];
    if (step.reasoning) {
      out.push({ type: "reasoning-start", id: "r0" });
      for (const t of tokens(step.reasoning)) out.push({ type: "reasoning-delta", id: "r0", delta: t });
      out.push({ type: "reasoning-end", id: "r0" });
    }
    if (step.text) {
      out.push({ type: "text-start", id: "t0" });
      for (const t of tokens(step.text)) out.push({ type: "text-delta", id: "t0", delta: t });
      out.push({ type: "text-end", id: "t0" });
    }
    (step.toolCalls ?? []).forEach((call, n) => {
      const id = `call_${digest}_${n}`;
      const args = JSON.stringify(call.arguments ?? {});
      const cut = Math.ceil(args.length / 2);
      out.push({ type: "tool-input-start", id, toolName: call.name });
      for (const piece of [args.slice(0, cut), args.slice(cut)]) {
        if (piece) out.push({ type: "tool-input-delta", id, delta: piece });
      }
      out.push({ type: "tool-input-end", id });
      out.push({ type: "tool-call", toolCallId: id, toolName: call.name, input: args });
    });
    out.push({
      type: "finish",
      finishReason: finishReason(step),
      usage: NO_USAGE,
    });
    return out;
  }
}

/**
 * The parts of a stream with no token delay: all queued at the first pull, then closed at the next
 * one, once they are read (one pull per part was an async call and a promise each: ~45 us of a
 * demo turn of ~40 parts). An abort before the close errors the stream and drops what is still
 * queued, as the check at each pull did.
 */
function queuedStream(
  parts: LanguageModelV4StreamPart[],
  signal: AbortSignal | undefined,
): ReadableStream<LanguageModelV4StreamPart> {
  let controller: ReadableStreamDefaultController<LanguageModelV4StreamPart> | undefined;
  let queued = false;
  const onAbort = () => controller?.error(abortError(signal));
  const stop = () => signal?.removeEventListener("abort", onAbort);
  return new ReadableStream<LanguageModelV4StreamPart>({
    start(c) {
      controller = c;
    },
    pull(c) {
      if (signal?.aborted) {
        stop();
        c.error(abortError(signal));
      } else if (queued) {
        stop();
        c.close();
      } else {
        queued = true;
        for (const part of parts) c.enqueue(part);
        signal?.addEventListener("abort", onAbort, { once: true });
      }
    },
    cancel() {
      stop();
    },
  });
}

/** The demo model counts no tokens: it bills nothing, and a made-up count would read as real. */
const NO_USAGE: LanguageModelV4Usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

function finishReason(step: DemoStep): LanguageModelV4FinishReason {
  return step.toolCalls?.length
    ? { unified: "tool-calls", raw: "tool_calls" }
    : { unified: "stop", raw: "stop" };
}

export function createDemoModel(options: DemoModelOptions = {}): DemoLanguageModel {
  return new DemoLanguageModel(options);
}
