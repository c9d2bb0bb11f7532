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
    this.transcript.pinned(() => this.bubble.classList.toggle("streaming", on));
  }

  appendReasoning(delta: string): void {
    if (!this.flags.showReasoning || !delta) return;
    // Inserting the strip changes the height too, so it happens inside pinned().
    this.transcript.pinned(() => {
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
      this.reasoningText!.append(delta);
    });
  }

  upsertTool(view: { key: string | number; name: string; arguments: unknown }): void {
    if (!this.flags.showToolCalls) return;
    let chip = this.chips.get(view.key);
    if (!chip) {
      const name = h("span", { class: "tool-name" });
      const args = h("pre", { class: "tool-args" });
      const el = h("details", { class: "tool" }, h("summary", {}, icon("wrench"), name), args);
      chip = { el, name, args };
      this.chips.set(view.key, chip);
      this.transcript.pinned(() => {
        if (!this.tools) {
          this.tools = h("div", { class: "tools" });
          this.bubble.insertBefore(this.tools, this.content);
        }
        this.tools.append(el);
      });
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

  /** Renders any pending text now (end of a stream); inside a replay batch the transcript decides when. */
  flush(): void {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    if (this.transcript.deferRender(this)) return;
    this.transcript.pinned(() => this.render());
  }

  /** The reply as markdown (escape-first, see markdown.ts). */
  render(): void {
    this.content.innerHTML = renderMarkdown(this.text);
  }

  /** The reply as plain text until `render` runs: all of it searchable and readable, no markup. */
  showPlain(): void {
    this.content.textContent = this.text;
  }

  get hasReasoning(): boolean {
    return this.reasoningText !== undefined;
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

/** Messages per replayed group (see `.msg-group` in page.css). */
const GROUP_SIZE = 25;

export class Transcript {
  constructor(
    readonly scroller: HTMLElement,
    private readonly list: HTMLElement,
    private readonly welcome: HTMLElement,
    private readonly flags: TranscriptFlags,
  ) {}

  /** While a batch runs, new messages collect here (detached) and go into the list at its end. */
  private batch_: HTMLElement[] | null = null;
  /** Replayed replies whose markdown waits, by message root (filled during a batch). */
  private readonly unrendered = new Map<HTMLElement, AssistantBubble>();
  /** Older replayed groups whose replies still show plain text, and what renders them. */
  private readonly pending = new Map<Element, AssistantBubble[]>();
  private observer: IntersectionObserver | undefined;
  private idle = 0;

  /** Inside a batch a reply's markdown waits for the batch's end (see `batch`). */
  deferRender(bubble: AssistantBubble): boolean {
    if (!this.batch_) return false;
    this.unrendered.set(bubble.root, bubble);
    return true;
  }

  /**
   * Older groups' replies start as plain text (the full content, in order) and get their markdown
   * when the group comes within a few screens of the view, or in idle time newest first, so a long
   * replay does not parse hundreds of HTML fragments before the newest messages show.
   */
  private defer(group: HTMLElement, bubbles: AssistantBubble[]): void {
    for (const b of bubbles) b.showPlain();
    this.pending.set(group, bubbles);
    this.observer ??= new IntersectionObserver(
      (entries) => {
        for (const e of entries) if (e.isIntersecting) this.renderGroup(e.target);
      },
      { root: this.scroller, rootMargin: "200% 0px" },
    );
    this.observer.observe(group);
  }

  private renderGroup(group: Element): void {
    const bubbles = this.pending.get(group);
    if (!bubbles) return;
    this.pending.delete(group);
    this.observer?.unobserve(group);
    for (const b of bubbles) b.render();
  }

  /** Renders the newest waiting group, one per idle period, until none is left. */
  private scheduleIdle(): void {
    if (this.idle || this.pending.size === 0) return;
    const next = () => {
      this.idle = 0;
      const groups = [...this.pending.keys()];
      const newest = groups[groups.length - 1];
      if (newest) this.renderGroup(newest);
      this.scheduleIdle();
    };
    this.idle =
      typeof requestIdleCallback === "function"
        ? requestIdleCallback(next, { timeout: 2000 })
        : window.setTimeout(next, 50);
  }

  private cancelDeferred(): void {
    this.pending.clear();
    this.observer?.disconnect();
    if (this.idle) {
      if (typeof cancelIdleCallback === "function") cancelIdleCallback(this.idle);
      else clearTimeout(this.idle);
      this.idle = 0;
    }
  }

  /** Keeps the view at the bottom if it was there; inside `batch` it only runs `fn` (no layout reads). */
  pinned(fn: () => void): void {
    if (this.batch_) fn();
    else keepPinned(this.scroller, fn);
  }

  /**
   * Runs many additions (a history replay) off-document and without reading layout between them:
   * each read would force a layout of the growing list, making a long replay quadratic. The
   * messages then go in as groups (see `.msg-group` in page.css), cut from the end so the newest
   * group is full; the newest two groups always render, so the view opens at the true bottom even
   * though older groups only have an estimated height. The caller scrolls afterwards.
   */
  batch(fn: () => void): void {
    const roots: HTMLElement[] = [];
    this.batch_ = roots;
    try {
      fn();
    } finally {
      this.batch_ = null;
      const fragment = document.createDocumentFragment();
      let start = 0;
      let end = roots.length % GROUP_SIZE || GROUP_SIZE;
      while (start < roots.length) {
        const recent = end > roots.length - 2 * GROUP_SIZE;
        const members = roots.slice(start, end);
        const group = h("div", { class: recent ? "msg-group recent" : "msg-group" }, ...members);
        const replies: AssistantBubble[] = [];
        for (const root of members) {
          const bubble = this.unrendered.get(root);
          if (bubble) replies.push(bubble);
        }
        if (recent) for (const b of replies) b.render();
        else if (replies.length) this.defer(group, replies);
        fragment.append(group);
        start = end;
        end += GROUP_SIZE;
      }
      this.unrendered.clear();
      this.list.append(fragment);
      this.scheduleIdle();
    }
  }

  private place(root: HTMLElement, before?: HTMLElement): void {
    if (this.batch_) this.batch_.push(root);
    else if (before?.parentNode === this.list) this.list.insertBefore(root, before);
    else this.list.append(root);
  }

  clear(): void {
    this.cancelDeferred();
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
    this.pinned(() => this.place(root, opts.before));
    return root;
  }

  /** A stored system message (the summary that Compact left in place of older messages), collapsed. */
  addSummary(text: string): HTMLElement {
    const body = h("div", { class: "reasoning", text });
    const note = h(
      "details",
      { class: "summary-note" },
      h("summary", { text: "Earlier messages (summarized)" }),
      body,
    );
    const root = h("div", { class: "msg system" }, note);
    this.welcome.hidden = true;
    this.pinned(() => this.place(root));
    return root;
  }

  addAssistant(): AssistantBubble {
    const bubble = new AssistantBubble(this, this.flags);
    this.welcome.hidden = true;
    this.pinned(() => this.place(bubble.root));
    return bubble;
  }
}
