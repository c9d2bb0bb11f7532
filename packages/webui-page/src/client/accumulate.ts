// Folds chunk envelopes of one turn into reply text, reasoning and tool calls. Tool-call fragments
// are keyed by `index`; a fragment bringing a different `id` for a used index starts a new call
// (a later model step of the same turn numbers its calls from 0 again). Text of a later model step
// (after a tool round, a steer, or an approval) starts a new paragraph.

export interface ToolCallView {
  /** Position in this turn, stable for the life of the chip. */
  key: number;
  id: string;
  name: string;
  arguments: string;
}

interface ToolCallFragment {
  index?: unknown;
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

export interface ApplyResult {
  content: string;
  reasoning: string;
  tools: ToolCallView[];
  suspended: boolean;
}

export class TurnAccumulator {
  content = "";
  reasoning = "";
  readonly toolCalls: ToolCallView[] = [];
  suspended = false;
  private byIndex = new Map<number, ToolCallView>();
  private breakBeforeText = false;
  private breakBeforeReasoning = false;
  private stepId: string | undefined;

  /** Applies one chunk envelope; returns what it added (text deltas, touched tool calls). */
  apply(envelope: unknown): ApplyResult {
    const result: ApplyResult = { content: "", reasoning: "", tools: [], suspended: false };
    if (typeof envelope !== "object" || envelope === null) return result;
    const env = envelope as { id?: unknown; kind?: unknown; choices?: { delta?: Record<string, unknown> }[] };
    if (env.kind === "middleware_stop") {
      this.suspended = true;
      result.suspended = true;
    }
    const delta = env.choices?.[0]?.delta;
    if (!delta || typeof delta !== "object") return result;
    // Every model call has its own chunk id (and opens with role "assistant"): a new step's text
    // must not be glued to the previous step's last word.
    const stepId = typeof env.id === "string" ? env.id : undefined;
    const newStep = (stepId !== undefined && stepId !== this.stepId) || delta.role === "assistant";
    if (stepId !== undefined) this.stepId = stepId;
    if (newStep && this.content) this.breakBeforeText = true;
    if (newStep && this.reasoning) this.breakBeforeReasoning = true;
    if (typeof delta.reasoning === "string" && delta.reasoning) {
      let text = delta.reasoning;
      if (this.breakBeforeReasoning && !this.reasoning.endsWith("\n")) text = `\n\n${text}`;
      this.breakBeforeReasoning = false;
      this.reasoning += text;
      result.reasoning = text;
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const raw of delta.tool_calls as ToolCallFragment[]) {
        const view = this.fold(raw);
        if (view && !result.tools.includes(view)) result.tools.push(view);
      }
    }
    if (typeof delta.content === "string" && delta.content) {
      let text = delta.content;
      if (this.breakBeforeText && this.content && !this.content.endsWith("\n\n")) text = `\n\n${text}`;
      this.breakBeforeText = false;
      this.content += text;
      result.content = text;
    }
    return result;
  }

  private fold(raw: ToolCallFragment): ToolCallView | undefined {
    if (typeof raw !== "object" || raw === null || typeof raw.index !== "number") return undefined;
    const id = typeof raw.id === "string" ? raw.id : "";
    let view = this.byIndex.get(raw.index);
    if (!view || (id && view.id && id !== view.id)) {
      view = { key: this.toolCalls.length, id, name: "", arguments: "" };
      this.toolCalls.push(view);
      this.byIndex.set(raw.index, view);
      // Text after a tool call is a new paragraph, not glued to the text before it.
      if (this.content) this.breakBeforeText = true;
    }
    if (id && !view.id) view.id = id;
    const name = raw.function?.name;
    if (typeof name === "string" && name && name !== view.name)
      view.name = view.name ? view.name + name : name;
    const args = raw.function?.arguments;
    if (typeof args === "string") view.arguments += args;
    return view;
  }
}
