// The transcript: user bubbles (plain text), assistant bubbles (markdown, Thinking strip, tool
// chips, notes, approval cards). Only the bubble being streamed changes, at an animation frame
// about ten times a second, and in it only the markdown block still growing is parsed and
// replaced (or, when only words were added to it, grown in place), so a token costs about the
// same early and late in a reply and in a long conversation.
import type { ToolCallView } from "./accumulate.js";
import { h, keepPinned } from "./dom.js";
import { icon } from "./icons.js";
import { appendedText, MarkdownStream } from "./markdown.js";

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

export type Decision = "approve" | "reject" | "edit";

function decisionText(decision: Decision): string {
  if (decision === "reject") return "Rejected.";
  return decision === "edit" ? "Approved with changes." : "Approved.";
}

/** The shortest time between two writes of a streaming reply (see `schedule`). */
const WRITE_INTERVAL_MS = 100;

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

/** Markup from renderMarkdown (escape-first) as nodes; a template's content is inert. */
function parse(html: string): DocumentFragment {
  const template = document.createElement("template");
  template.innerHTML = html;
  return template.content;
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
  private timer = 0;
  private lastWrite = 0;
  /** Reasoning streamed since the last frame (appended as text at the frame). */
  private reasoningQueue = "";
  private readonly markdown = new MarkdownStream();
  /** The nodes of the block still growing; replaced at each render, or grown in place. */
  private openNodes: ChildNode[] = [];
  /** The markup `openNodes` were made from. */
  private openHtml = "";

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

  /**
   * The row above the reply text: the collapsed Thinking strip first, then one chip per tool call,
   * side by side (a collapsed strip costs no line of its own); an opened one takes the full width.
   */
  private chipRow(): HTMLElement {
    if (!this.tools) {
      this.tools = h("div", { class: "tools" });
      this.bubble.insertBefore(this.tools, this.content);
    }
    return this.tools;
  }

  /** Reasoning goes in as text (never markup), with the reply text at the next frame. */
  appendReasoning(delta: string): void {
    if (!this.flags.showReasoning || !delta) return;
    this.reasoningQueue += delta;
    this.schedule();
  }

  private writeReasoning(): void {
    if (!this.reasoningQueue) return;
    if (!this.thinking) {
      this.reasoningText = h("div", { class: "reasoning" });
      this.thinking = h(
        "details",
        { class: "thinking" },
        h("summary", { text: "Thinking" }),
        this.reasoningText,
      );
      this.chipRow().prepend(this.thinking);
    }
    this.reasoningText!.append(this.reasoningQueue);
    this.reasoningQueue = "";
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
      this.transcript.pinned(() => this.chipRow().append(el));
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

  /** Sets the reply text; the DOM changes at the next write (coalescing the tokens until then). */
  setText(text: string): void {
    this.text = text;
    this.schedule();
  }

  /**
   * At the next animation frame, but not sooner than WRITE_INTERVAL_MS after the last write: each
   * frame that changes the page costs style, layout, paint and a commit whatever the change, so a
   * fast model's tokens are written about 10 times a second rather than 60.
   */
  private schedule(): void {
    if (this.frame || this.timer) return;
    const wait = this.lastWrite + WRITE_INTERVAL_MS - performance.now();
    const atFrame = () => {
      this.timer = 0;
      this.frame = requestAnimationFrame(() => this.flush());
    };
    if (wait > 0) this.timer = window.setTimeout(atFrame, wait);
    else atFrame();
  }

  /** Writes anything pending now (end of a stream); inside a replay batch the transcript decides when. */
  flush(): void {
    if (this.frame) cancelAnimationFrame(this.frame);
    if (this.timer) clearTimeout(this.timer);
    this.frame = 0;
    this.timer = 0;
    if (this.transcript.deferRender(this)) return;
    this.lastWrite = performance.now();
    this.transcript.pinned(() => this.render());
  }

  /**
   * Writes pending reasoning and the reply as markdown (escape-first, see markdown.ts): blocks that
   * became final are appended once, the open block replaces its previous nodes.
   */
  render(): void {
    this.writeReasoning();
    const { done, open, reset } = this.markdown.update(this.text);
    if (!reset && !done && this.grow(open)) return;
    if (reset) {
      this.content.replaceChildren();
      this.openNodes = [];
    }
    for (const node of this.openNodes) node.remove();
    const growing = parse(open);
    this.openNodes = [...growing.childNodes];
    this.openHtml = open;
    this.content.append(parse(done), growing);
  }

  /**
   * When the tokens since the last write only added words to the last line of the open block, they
   * go into its last text node: the block keeps its nodes (no parse, no new elements to style, lay
   * out and paint).
   */
  private grow(open: string): boolean {
    const grown = appendedText(this.openHtml, open);
    if (!grown) return false;
    let el: ChildNode | null | undefined = this.openNodes.at(-1);
    for (let i = grown.closing.length - 1; ; i--) {
      if (!(el instanceof Element) || el.localName !== grown.closing[i]) return false;
      if (i === 0) break;
      el = el.lastChild;
    }
    const last = el.lastChild;
    if (last instanceof Text) last.appendData(grown.text);
    else if (grown.text) el.append(grown.text);
    this.openHtml = open;
    return true;
  }

  get hasReasoning(): boolean {
    return this.reasoningText !== undefined || this.reasoningQueue !== "";
  }

  get hasText(): boolean {
    return this.text.trim() !== "";
  }

  addNote(text: string, kind: "info" | "error" = "info"): HTMLElement {
    const note = h("p", { class: kind === "error" ? "note error-text" : "note", text });
    this.transcript.pinned(() => this.bubble.append(note));
    return note;
  }

  /**
   * The decision in place of the card, moved between the request (the tool chip) and what follows
   * from it (the result and the reply), where it happened in the turn.
   */
  settleApproval(card: HTMLElement, decision: Decision): void {
    this.transcript.pinned(() => {
      card.replaceChildren(decisionText(decision));
      card.classList.add("decided");
      this.bubble.insertBefore(card, this.content);
    });
  }

  /** A decision replayed from the history: where `settleApproval` put it live. */
  addDecision(decision: Decision): void {
    const card = h("div", {
      class: "approval decided",
      text: decisionText(decision),
      attrs: { role: "group", "aria-label": "Approval request" },
    });
    this.transcript.pinned(() => this.bubble.insertBefore(card, this.content));
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

/** For benchmarks and diagnostics: every replayed reply has its markdown (navigation-relative). */
function markComplete(): void {
  performance.mark("agentsvc:history-complete");
}

/** Messages per replayed group (see `.msg-group` in page.css). */
const GROUP_SIZE = 25;
/**
 * The newest group, built during the replay itself, holds about two screens of messages (estimated
 * from their text, see `recentCount`): enough for the view to open at the true bottom on real
 * content, and no more, since every message in it is built, styled and laid out before the first
 * frame. The group before it is within the observer's two screens and is built right after.
 */
const RECENT_SCREENS = 2;
/** Line height of the transcript's text in px (15px at line-height 1.5), for the estimate only. */
const LINE_PX = 22;

export class Transcript {
  constructor(
    readonly scroller: HTMLElement,
    private readonly list: HTMLElement,
    private readonly welcome: HTMLElement,
    private readonly flags: TranscriptFlags,
  ) {}

  /** While a group is built, its messages collect here (detached) and go into the group at its end. */
  private batch_: HTMLElement[] | null = null;
  /** Replies of the group being built; their markdown renders once, when the group is complete. */
  private readonly unrendered = new Map<HTMLElement, AssistantBubble>();
  /** Older replayed groups not built yet (empty placeholders), and what builds each. */
  private readonly pending = new Map<Element, () => void>();
  private observer: IntersectionObserver | undefined;
  private idle = 0;

  /** Inside a group build a reply's markdown waits for the group's end (see `fill`). */
  deferRender(bubble: AssistantBubble): boolean {
    if (!this.batch_) return false;
    this.unrendered.set(bubble.root, bubble);
    return true;
  }

  /**
   * Replays stored messages as groups of on-screen messages (`units`, each becoming one message
   * element through `build`). The newest group (about two screens, `recentCount`) is built at once,
   * so the view opens at the true bottom; older units are cut into groups of GROUP_SIZE from the
   * end and start as empty placeholders with an estimated height (see `.msg-group:empty` in
   * page.css), built when they come within two screens of the view, or in idle time newest first.
   * A long replay then costs about as much as a short one, instead of creating thousands of
   * elements before anything shows. `lines` estimates a unit's height in text lines. The caller
   * scrolls afterwards.
   */
  replay<T>(units: T[], build: (units: T[]) => void, lines: (unit: T) => number): void {
    const fragment = document.createDocumentFragment();
    const first = units.length - this.recentCount(units, lines);
    let start = 0;
    let end = first % GROUP_SIZE || GROUP_SIZE;
    while (start < first) {
      const members = units.slice(start, end);
      const group = h("div", { class: "msg-group" });
      this.defer(group, () => build(members));
      fragment.append(group);
      start = end;
      end += GROUP_SIZE;
    }
    if (first < units.length) {
      const recent = h("div", { class: "msg-group recent" });
      this.fill(recent, () => build(units.slice(first)));
      fragment.append(recent);
      // The newest group renders fully for the first layout (the view must open at the true
      // bottom); once painted its size is remembered (`contain-intrinsic-size: auto`), so from then
      // on it too is skipped while off-screen and a long conversation paints no more than a short one.
      requestAnimationFrame(() => requestAnimationFrame(() => recent.classList.remove("recent")));
    }
    this.list.append(fragment);
    if (this.pending.size === 0) markComplete();
    else this.scheduleIdle();
  }

  /**
   * How many of the newest units fill about RECENT_SCREENS screens, estimated from their text
   * (`lines`) and the window's height, which reads no layout; at least one, at most GROUP_SIZE.
   */
  private recentCount<T>(units: T[], lines: (unit: T) => number): number {
    const budget = (RECENT_SCREENS * window.innerHeight) / LINE_PX;
    let total = 0;
    let count = 0;
    while (count < units.length && count < GROUP_SIZE && total < budget)
      total += lines(units[units.length - 1 - count++] as T);
    return count;
  }

  /**
   * Builds one group off-document without reading layout (each read would force a layout of the
   * growing list), renders its replies' markdown, then inserts it in one go.
   */
  private fill(group: Element, build: () => void): void {
    const roots: HTMLElement[] = [];
    this.batch_ = roots;
    try {
      build();
    } finally {
      this.batch_ = null;
    }
    for (const bubble of this.unrendered.values()) bubble.render();
    this.unrendered.clear();
    group.append(...roots);
  }

  private defer(group: HTMLElement, build: () => void): void {
    this.pending.set(group, build);
    this.observer ??= new IntersectionObserver(
      (entries) => {
        for (const e of entries) if (e.isIntersecting) this.buildGroup(e.target);
      },
      { root: this.scroller, rootMargin: "200% 0px" },
    );
    this.observer.observe(group);
  }

  private buildGroup(group: Element): void {
    const build = this.pending.get(group);
    if (!build) return;
    this.pending.delete(group);
    this.observer?.unobserve(group);
    this.fill(group, build);
    if (this.pending.size === 0) markComplete();
  }

  /** Builds the newest waiting group, one per idle period, until none is left. */
  private scheduleIdle(): void {
    if (this.idle || this.pending.size === 0) return;
    const next = () => {
      this.idle = 0;
      const groups = [...this.pending.keys()];
      const newest = groups[groups.length - 1];
      if (newest) this.buildGroup(newest);
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

  /** Keeps the view at the bottom if it was there; while a group is built it only runs `fn`. */
  pinned(fn: () => void): void {
    if (this.batch_) fn();
    else keepPinned(this.scroller, fn);
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

  /** The scroller's origin is its bottom (a reversed column, see page.css): already there, nothing scrolls. */
  scrollToEnd(): void {
    this.scroller.scrollTop = 0;
  }

  addUser(
    text: string,
    opts: { steer?: boolean; before?: HTMLElement; files?: HTMLElement } = {},
  ): HTMLElement {
    const bubble = h("div", { class: "bubble", text });
    if (opts.files) bubble.append(opts.files);
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
