// The `cli` channel adapter: a blocking stdin/stdout approval prompt (A approve, R reject with a
// reason, Q reject and cancel the run). The default approval channel of runs not started from a gateway.
import type { Readable, Writable } from "node:stream";
import type { DecisionKind } from "@agentsvc/adapter-kit";
import type {
  DecisionInput,
  Gateway,
  GatewayCapabilities,
  GatewayContext,
  InteractionRequest,
  SendResult,
} from "@agentsvc/adapter-kit";
import { LineReader } from "./line-reader.js";

export interface CliGatewayOptions {
  /** Entry name; default `cli`. */
  name?: string;
  /** Default `process.stdin`. */
  input?: Readable;
  /** Default `process.stdout`. */
  output?: Writable;
  /** Recorded as `decidedBy`; default `cli:<name>`. */
  decidedBy?: string;
}

const ARGS_LIMIT = 2000;

export class CliGateway implements Gateway {
  readonly kind = "channel" as const;
  readonly type = "cli";
  readonly name: string;
  readonly capabilities: GatewayCapabilities = { threads: false, interactiveActions: true };
  /** A terminal has no platform limit; keep pieces readable. */
  readonly messageLimit = 65_536;
  readonly #input: Readable;
  readonly #output: Writable;
  readonly #decidedBy: string;
  #context: GatewayContext | undefined;
  #reader: LineReader | undefined;
  /** Prompts run one at a time, in the order they were requested. */
  #chain: Promise<void> = Promise.resolve();

  constructor(options: CliGatewayOptions = {}) {
    this.name = options.name ?? "cli";
    this.#input = options.input ?? process.stdin;
    this.#output = options.output ?? process.stdout;
    this.#decidedBy = options.decidedBy ?? `cli:${this.name}`;
  }

  async start(context: GatewayContext): Promise<void> {
    this.#context = context;
    this.#reader = new LineReader(this.#input);
  }

  async stop(): Promise<void> {
    this.#reader?.close();
    this.#reader = undefined;
    this.#context = undefined;
  }

  async send(thread: string, text: string): Promise<SendResult | undefined> {
    this.#write(`[${thread}] ${text}\n`);
    return undefined;
  }

  /** Queues the prompt and returns; the answer is reported through `context.decide`. */
  async requestDecision(request: InteractionRequest): Promise<SendResult | undefined> {
    const context = this.#context;
    const reader = this.#reader;
    if (!context || !reader) throw new Error(`cli gateway "${this.name}" is not started`);
    this.#chain = this.#chain.then(() =>
      this.#prompt(request, context, reader).catch((err) => {
        context.logger.error({ err, requestId: request.requestId }, "approval prompt failed");
      }),
    );
    return undefined;
  }

  /** Resolves once every queued prompt has been answered (or input ended). */
  settled(): Promise<void> {
    return this.#chain;
  }

  async #prompt(request: InteractionRequest, context: GatewayContext, reader: LineReader): Promise<void> {
    const choices = choicesFor(request.allowedDecisions);
    this.#write(
      `\nApproval needed (request ${request.requestId}, run ${request.threadId})\n` +
        `Tool: ${request.toolName}\nArguments: ${showArgs(request.arguments)}\n`,
    );
    for (;;) {
      this.#write(`${choices.map((c) => c.label).join(", ")} > `);
      const line = await reader.next();
      if (line === undefined) {
        context.logger.warn(
          { requestId: request.requestId },
          "input ended before an answer; the request stays pending (resumable through /resume)",
        );
        return;
      }
      const key = line.trim().toLowerCase();
      const choice = choices.find((c) => c.keys.includes(key));
      if (!choice) {
        this.#write(`Please answer ${choices.map((c) => c.keys[0]?.toUpperCase()).join(", ")}.\n`);
        continue;
      }
      let decision: DecisionInput;
      if (choice.id === "approve") {
        decision = { decision: "approve" };
      } else if (choice.id === "reject") {
        this.#write("Reason (optional) > ");
        const reason = (await reader.next())?.trim() ?? "";
        decision = reason ? { decision: "reject", reason } : { decision: "reject" };
      } else {
        decision = { decision: "reject", reason: "quit at the cli approval prompt", cancelRun: true };
      }
      const result = await context.decide(request.requestId, decision, this.#decidedBy);
      this.#write(result.ok ? `Recorded: ${describe(decision)}.\n` : `Not recorded: ${result.message}\n`);
      return;
    }
  }

  #write(text: string): void {
    this.#output.write(text);
  }
}

interface Choice {
  id: "approve" | "reject" | "quit";
  keys: string[];
  label: string;
}

function choicesFor(allowed: DecisionKind[]): Choice[] {
  const choices: Choice[] = [];
  if (allowed.includes("approve"))
    choices.push({ id: "approve", keys: ["a", "approve"], label: "[A]pprove" });
  if (allowed.includes("reject")) {
    choices.push({ id: "reject", keys: ["r", "reject"], label: "[R]eject" });
    choices.push({ id: "quit", keys: ["q", "quit"], label: "[Q]uit (reject and cancel the run)" });
  }
  return choices;
}

function describe(d: DecisionInput): string {
  if (d.cancelRun) return "rejected, run cancelled";
  if (d.decision === "reject") return d.reason ? `rejected (${d.reason})` : "rejected";
  return "approved";
}

function showArgs(args: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(args) ?? "(none)";
  } catch {
    s = String(args);
  }
  return s.length > ARGS_LIMIT ? `${s.slice(0, ARGS_LIMIT)}…` : s;
}

export function createCliGateway(options: CliGatewayOptions = {}): CliGateway {
  return new CliGateway(options);
}
