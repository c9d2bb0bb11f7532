// The providers' prompt caches, as the fakes report them: a request whose prompt starts as an earlier
// one did has that prefix read from the cache. Token counts are the fakes' rough ones (4 characters a
// token, core.ts roughTokens), so a cached count never exceeds the input count reported beside it.
//
// OpenAI caches on its own (https://platform.openai.com/docs/guides/prompt-caching): prompts of 1,024
// tokens or more, the longest prefix seen before, from 1,024 tokens up in steps of 128; the count is
// `usage.prompt_tokens_details.cached_tokens` on Chat Completions (`usage.input_tokens_details
// .cached_tokens` on the Responses API, which the fake does not serve) and is part of `prompt_tokens`.
//
// Anthropic caches only where asked (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching):
// a `cache_control` on a block (tools, then system, then messages) is a breakpoint, and one at the
// top of the request puts it on the last block. The prefix up to a breakpoint is looked up there and
// up to 20 blocks before it; what was found is `cache_read_input_tokens`, the prefix up to the last
// breakpoint is written when it has at least 1,024 tokens (`cache_creation_input_tokens`, what it adds
// to the read), and `input_tokens` counts only the rest. All three are in `message_start`'s usage and
// in `message_delta`'s (cumulative).

const MIN_CACHED_TOKENS = 1024;
const OPENAI_STEP = 128;
const ANTHROPIC_LOOKBACK = 20;

/** Tokens of a whole prompt or block prefix (core.ts roughTokens), and of a common start (rounded down). */
const tokensOf = (chars: number) => Math.ceil(chars / 4);
const startTokens = (chars: number) => Math.floor(chars / 4);

function commonPrefix(a: string, b: string): number {
  const end = Math.min(a.length, b.length);
  let i = 0;
  while (i < end && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** OpenAI's automatic cache of one fake: earlier prompts by model. */
export class OpenAIPromptCache {
  readonly #seen = new Map<string, string[]>();

  /** Cached tokens of this prompt (the JSON of its messages), then remembers it. */
  take(model: string, prompt: string): number {
    const earlier = this.#seen.get(model) ?? [];
    let common = 0;
    for (const before of earlier) common = Math.max(common, commonPrefix(before, prompt));
    earlier.push(prompt);
    this.#seen.set(model, earlier);
    const total = tokensOf(prompt.length);
    const prefix = startTokens(common);
    if (total < MIN_CACHED_TOKENS || prefix < MIN_CACHED_TOKENS) return 0;
    return Math.min(
      total,
      MIN_CACHED_TOKENS + Math.floor((prefix - MIN_CACHED_TOKENS) / OPENAI_STEP) * OPENAI_STEP,
    );
  }
}

export interface AnthropicCacheUsage {
  /** Tokens of the whole prompt (tools, system, messages). */
  total: number;
  read: number;
  written: number;
}

type Block = Record<string, unknown>;

/** Anthropic's cache of one fake: the prefixes written, by model. */
export class AnthropicPromptCache {
  readonly #written = new Map<string, Set<string>>();

  /** The cache's share of this request, or undefined when nothing in it asks for caching. */
  take(model: string, body: Record<string, unknown>): AnthropicCacheUsage | undefined {
    const blocks = promptBlocks(body);
    const marks = blocks.flatMap((b, i) => (b.mark ? [i] : []));
    if (body.cache_control !== undefined && blocks.length > 0) marks.push(blocks.length - 1);
    if (marks.length === 0) return undefined;
    // The prefix up to each block, cache_control left out (it is not part of what is cached).
    const prefixes: string[] = [];
    let text = "";
    for (const block of blocks) {
      text += block.text;
      prefixes.push(text);
    }
    const written = this.#written.get(model) ?? new Set<string>();
    this.#written.set(model, written);
    let read = 0;
    for (const mark of marks)
      for (let i = mark; i >= 0 && i > mark - ANTHROPIC_LOOKBACK; i--) {
        const prefix = prefixes[i] as string;
        if (written.has(prefix)) {
          read = Math.max(read, tokensOf(prefix.length));
          break;
        }
      }
    let wrote = 0;
    for (const mark of marks) {
      const prefix = prefixes[mark] as string;
      if (tokensOf(prefix.length) < MIN_CACHED_TOKENS || written.has(prefix)) continue;
      written.add(prefix);
      wrote = Math.max(wrote, tokensOf(prefix.length) - read);
    }
    return { total: Math.max(1, tokensOf(text.length)), read, written: wrote };
  }
}

/** Tools, system blocks and message blocks in the order Anthropic caches them, with their marks. */
function promptBlocks(body: Record<string, unknown>): { text: string; mark: boolean }[] {
  const out: { text: string; mark: boolean }[] = [];
  const add = (where: string, block: unknown) => {
    if (typeof block === "string") {
      out.push({ text: `${where}${JSON.stringify(block)}`, mark: false });
      return;
    }
    const { cache_control, ...rest } = (block ?? {}) as Block;
    out.push({ text: `${where}${JSON.stringify(rest)}`, mark: cache_control !== undefined });
  };
  for (const tool of Array.isArray(body.tools) ? body.tools : []) add("tool:", tool);
  if (Array.isArray(body.system)) for (const block of body.system) add("system:", block);
  else if (body.system !== undefined) add("system:", body.system);
  for (const message of Array.isArray(body.messages) ? (body.messages as Block[]) : []) {
    const where = `${String(message.role)}:`;
    if (Array.isArray(message.content)) for (const block of message.content) add(where, block);
    else add(where, message.content);
  }
  return out;
}
