// Scripted agent behaviour for the fake API, chosen by the first word of the user's input.
// Each script yields stream steps; the server turns them into `chunk` events.

export type Step =
  | { delta: Record<string, unknown> }
  | { suspend: PendingCall }
  | { error: { code: string; message: string; retryAfterMs?: number } }
  | { sleep: number }
  /** How the turn ended, sent in the `done` event (the agent route's `{status, finishReason}`). */
  | { finish: string };

export interface PendingCall {
  toolCallId: string;
  toolName: string;
  arguments: unknown;
}

export interface RunControl {
  readonly cancelled: boolean;
  /** Steering messages received since the last call. */
  takeSteers(): string[];
}

export const XSS_PAYLOADS = [
  "<img src=x onerror=window.__pwned=1>",
  "<svg onload=window.__pwned=2>",
  "[click](javascript:window.__pwned=3)",
  '[quote](https://example.com" onmouseover="window.__pwned=4)',
  "<javascript://%0awindow.__pwned=5>",
  "<script>window.__pwned=6</script>",
  "`</code><img src=x onerror=window.__pwned=7>`",
];

/**
 * A reply mixing plain words (most tokens only add words to the open block) with markup that
 * changes the open block's shape: emphasis, code, links, a list, a fence, a heading, line breaks.
 */
export const PROSE = [
  "# Feeding cats",
  "",
  "Most cats eat twice a day and like a quiet place for it, away from the litter box and busy doors.",
  "Fresh water matters as much as food, so keep a bowl filled.",
  "",
  "Some **wet food** helps with water, and `dry food` keeps longer; see [the guide](https://example.com/cats) for details.",
  "",
  "- a measured portion in the morning",
  "- another one in the evening, with _no_ snacks in between",
  "",
  "```",
  "portion = weight * 0.04",
  "meals = 2",
  "```",
  "",
  "That is all there is to it: watch the weight, adjust the portion, and ask a vet when in doubt.",
].join("\n");

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export async function* scriptFor(input: string, run: RunControl): AsyncGenerator<Step> {
  const word = input.trim().split(/\s+/)[0]?.toLowerCase() ?? "";
  yield { delta: { role: "assistant" } };
  switch (word) {
    case "think": {
      yield { delta: { reasoning: "The user wants cats. " } };
      yield { delta: { reasoning: "I will look it up." } };
      yield {
        delta: {
          tool_calls: [
            { index: 0, id: "call_1", type: "function", function: { name: "lookup", arguments: '{"q":' } },
          ],
        },
      };
      yield { delta: { tool_calls: [{ index: 0, function: { arguments: '"cats"}' } }] } };
      for (const p of pieces(
        "Cats are **great**.\n\n- purr\n- nap\n\n```js\nconst snake_case = 1;\n```",
        7,
      )) {
        yield { delta: { content: p } };
      }
      return;
    }
    case "slow": {
      for (let i = 1; i <= 80 && !run.cancelled; i++) {
        for (const s of run.takeSteers()) yield { delta: { content: `[steered: ${s}] ` } };
        yield { delta: { content: `tick ${i} ` } };
        yield { sleep: 60 };
      }
      return;
    }
    case "approve": {
      yield { delta: { content: "I need to delete a file." } };
      yield {
        delta: {
          tool_calls: [
            {
              index: 0,
              id: "call_del",
              type: "function",
              function: { name: "delete_file", arguments: '{"path":"/tmp/x"}' },
            },
          ],
        },
      };
      yield { suspend: { toolCallId: "call_del", toolName: "delete_file", arguments: { path: "/tmp/x" } } };
      return;
    }
    case "xss": {
      yield { delta: { reasoning: XSS_PAYLOADS[0] } };
      yield {
        delta: {
          tool_calls: [
            { index: 0, id: "x1", function: { name: XSS_PAYLOADS[1], arguments: XSS_PAYLOADS[0] } },
          ],
        },
      };
      for (const p of XSS_PAYLOADS) yield { delta: { content: `${p}\n\n` } };
      return;
    }
    case "xsssplit": {
      // Markup split across tokens, at block boundaries and inside a code span, each piece written
      // to the page separately (the page writes a streaming reply at most every 100 ms).
      const tokens = [
        "Before.\n\n<im",
        "g src=x one",
        "rror=window.__pwned=11>\n\n`</co",
        "de><img src=x onerror=window.__pwned=12>`\n\n<sv",
        "g onload=window.__pwned=13>\n",
        "\n[x](javas",
        "cript:window.__pwned=14) after.",
      ];
      for (const t of tokens) {
        yield { delta: { content: t } };
        yield { sleep: 130 };
      }
      return;
    }
    case "prose": {
      for (const token of PROSE.match(/\S+\s*|\s+/g) ?? []) {
        yield { delta: { content: token } };
        yield { sleep: 10 };
      }
      return;
    }
    case "fail": {
      yield { delta: { content: "Partial answer" } };
      yield { error: { code: "model_error", message: "The model failed." } };
      return;
    }
    case "cut": {
      yield { delta: { content: "This answer stops in the mid" } };
      yield { finish: "length" };
      return;
    }
    case "ratelimit": {
      // The provider's own text is not what the page shows (it may be the provider's raw JSON).
      yield { delta: { content: "Partial" } };
      yield {
        error: {
          code: "rate_limited",
          message: '429 {"error":{"message":"Rate limit reached for requests","type":"requests"}}',
          retryAfterMs: 6200,
        },
      };
      return;
    }
    case "long": {
      for (let i = 1; i <= 60; i++) {
        yield { delta: { content: `Line ${i} of a long answer.\n\n` } };
        yield { sleep: 15 };
      }
      return;
    }
    default: {
      for (const p of pieces(`You said: ${input}`, 5)) yield { delta: { content: p } };
    }
  }
}

export async function* resumeScript(decision: string): AsyncGenerator<Step> {
  yield { delta: { role: "assistant" } };
  const text = decision === "approve" ? " Deleted /tmp/x." : " Okay, I did not delete it.";
  for (const p of pieces(text, 6)) yield { delta: { content: p } };
}
