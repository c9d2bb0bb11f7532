// The transcript: user bubbles (plain text), assistant bubbles (markdown, Thinking strip, tool
// chips, notes, approval cards). Only the bubble being streamed is re-rendered, at most once per
// animation frame, so cost follows the new text rather than the whole history.
import type { ToolCallView } from "./accumulate.js";
import { h, keepPinned } from "./dom.js";
import { icon } from "./icons.js";
import { renderMarkdown } from "./markdown.js";

export interface TranscriptFlags {
  showReasoning: boolean;
  showToolCalls: boolean;
}

export interface PendingApproval {
  threadId: string;
  toolCallId?: string;
  toolName: string;
  arguments: unknown;
  allowedDecisions?: string[];
}

function pretty(value: unknown): string {
  if (typeof value === "string") {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

export class AssistantBubble {
  readonly root: HTMLElement;
  private readonly bubble: HTMLElement;
  private readonly content: HTMLElement;
  private thinking: HTMLDetailsElement | undefined;
  private reasoningText: HTMLElement | undefined;
  private tools: HTMLElement | undefined;
  private readonly chips = new Map<
    string | number,
    { el: HTMLDetailsElement; name: HTMLElement; args: HTMLElement }
  >();
  private text = "";
  private frame = 0;

  constructor(
    private readonly transcript: Transcript,
    private readonly flags: TranscriptFlags,
  ) {
    this.content = h("div", { class: "content" });
    this.bubble = h("div", { class: "bubble" }, this.content);
    this.root = h("div", { class: "msg assistant" }, this.bubble);
  }

  setStreaming(on: boolean): void {
    this.bubble.classList.toggle("streaming", on);
  }

  appendReasoning(delta: string): void {
    if (!this.flags.showReasoning || !delta) return;
    if (!this.thinking) {
      this.reasoningText = h("div", { class: "reasoning" });
      this.thinking = h(
        "details",
        { class: "thinking" },
        h("summary", { text: "Thinking" }),
        this.reasoningText,
      );
      this.bubble.insertBefore(this.thinking, this.tools ?? this.content);
    }
    this.transcript.pinned(() => this.reasoningText!.append(delta));
  }

  upsertTool(view: { key: string | number; name: string; arguments: unknown }): void {
    if (!this.flags.showToolCalls) return;
    if (!this.tools) {
      this.tools = h("div", { class: "tools" });
      this.bubble.insertBefore(this.tools, this.content);
    }
    let chip = this.chips.get(view.key);
    if (!chip) {
      const name = h("span", { class: "tool-name" });
      const args = h("pre", { class: "tool-args" });
      const el = h("details", { class: "tool" }, h("summary", {}, icon("wrench"), name), args);
      chip = { el, name, args };
      this.chips.set(view.key, chip);
      this.transcript.pinned(() => this.tools!.append(el));
    }
    chip.name.textContent = view.name || "tool";
    chip.args.textContent = typeof view.arguments === "string" ? view.arguments : pretty(view.arguments);
  }

  /** Streaming chips carry partial JSON; pretty-print it once the call is complete. */
  finishTools(views: ToolCallView[]): void {
    for (const v of views) this.upsertTool({ key: v.key, name: v.name, arguments: pretty(v.arguments) });
  }

  setToolResult(key: string, result: unknown, isError: boolean): void {
    const chip = this.chips.get(key);
    if (!chip) return;
    chip.el.append(
      h("div", {
        class: isError ? "tool-result-label error-text" : "tool-result-label",
        text: isError ? "Error" : "Result",
      }),
      h("pre", { class: "tool-result", text: pretty(result) }),
    );
  }

  /** Sets the reply text; the markdown re-render waits for the next frame (coalescing tokens). */
  setText(text: string): void {
    this.text = text;
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => this.flush());
  }

  /** Renders any pending text now (end of a stream). */
  flush(): void {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.transcript.pinned(() => {
      this.content.innerHTML = renderMarkdown(this.text);
    });
  }

  get hasText(): boolean {
    return this.text.trim() !== "";
  }

  addNote(text: string, kind: "info" | "error" = "info"): HTMLElement {
    const note = h("p", { class: kind === "error" ? "note error-text" : "note", text });
    this.transcript.pinned(() => this.bubble.append(note));
    return note;
  }

  /** An Approve/Reject card; `decide` resolves when the continuation is finished. */
  addApproval(
    pending: PendingApproval,
    decide: (decision: "approve" | "reject") => Promise<void>,
  ): HTMLElement {
    const allowed = pending.allowedDecisions ?? ["approve", "reject"];
    const title = h(
      "p",
      { class: "approval-title" },
      "Approval needed: ",
      h("strong", { text: pending.toolName }),
    );
    const args = h("pre", { class: "tool-args", text: pretty(pending.arguments) });
    const row = h("div", { class: "row" });
    const card = h(
      "div",
      { class: "approval", attrs: { role: "group", "aria-label": "Approval request" } },
      title,
      args,
      row,
    );
    const buttons: HTMLButtonElement[] = [];
    const choose = async (decision: "approve" | "reject") => {
      for (const b of buttons) b.disabled = true;
      await decide(decision);
    };
    if (allowed.includes("approve")) {
      const b = h("button", { class: "btn primary", text: "Approve", attrs: { type: "button" } });
      b.addEventListener("click", () => void choose("approve"));
      buttons.push(b);
    }
    if (allowed.includes("reject")) {
      const b = h("button", { class: "btn danger", text: "Reject", attrs: { type: "button" } });
      b.addEventListener("click", () => void choose("reject"));
      buttons.push(b);
    }
    row.append(...buttons);
    this.transcript.pinned(() => this.bubble.append(card));
    return card;
  }
}

export class Transcript {
  constructor(
    readonly scroller: HTMLElement,
    private readonly list: HTMLElement,
    private readonly welcome: HTMLElement,
    private readonly flags: TranscriptFlags,
  ) {}

  pinned(fn: () => void): void {
    keepPinned(this.scroller, fn);
  }

  clear(): void {
    this.list.replaceChildren(this.welcome);
    this.welcome.hidden = false;
  }

  /** Shows the welcome message when there is nothing else. */
  settle(): void {
    this.welcome.hidden = this.list.childElementCount > 1;
  }

  scrollToEnd(): void {
    this.scroller.scrollTop = this.scroller.scrollHeight;
  }

  addUser(text: string, opts: { steer?: boolean; before?: HTMLElement } = {}): HTMLElement {
    const bubble = h("div", { class: "bubble", text });
    const root = h("div", { class: opts.steer ? "msg user steer" : "msg user" }, bubble);
    if (opts.steer) bubble.prepend(h("span", { class: "tag", text: "Steer" }));
    this.welcome.hidden = true;
    this.pinned(() => {
      if (opts.before?.parentNode === this.list) this.list.insertBefore(root, opts.before);
      else this.list.append(root);
    });
    return root;
  }

  addAssistant(): AssistantBubble {
    const bubble = new AssistantBubble(this, this.flags);
    this.welcome.hidden = true;
    this.pinned(() => this.list.append(bubble.root));
    return bubble;
  }
}
