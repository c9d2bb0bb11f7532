// The composer: Enter sends, Shift+Enter is a newline, nothing is sent while an input method is
// composing; it grows to about six lines and then scrolls (max-height in CSS); the draft is kept
// per conversation in storage so it survives a key prompt, a sign-in and a reload.
import type { PageStorage } from "./storage.js";

export class Composer {
  /** Whether grow() has run once (the textarea's height matches its text). */
  private sized = false;
  private conversationId = "";
  /**
   * While a new conversation is being created (see `hold`): the text in the box when it started.
   * What is typed meanwhile belongs to the conversation being opened, not to the one being left.
   */
  private heldFrom: string | null = null;

  constructor(
    readonly form: HTMLFormElement,
    readonly input: HTMLTextAreaElement,
    private readonly storage: PageStorage,
    onSubmit: () => void,
  ) {
    input.addEventListener("keydown", (e) => {
      if (e.key !== "Enter" || e.shiftKey || e.isComposing || e.keyCode === 229) return;
      e.preventDefault();
      onSubmit();
    });
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      onSubmit();
    });
    input.addEventListener("input", () => {
      this.grow();
      this.saveDraft();
    });
  }

  /** Height follows the content; CSS caps it at about six lines. Set through CSSOM (CSP-safe). */
  grow(): void {
    // Empty: the one-row height `rows="1"` gives (the same as measured), without a layout read;
    // at start-up that read would force the page's first full layout inside the script.
    if (this.input.value === "") {
      this.input.style.height = "";
      return;
    }
    this.input.style.height = "auto";
    this.input.style.height = `${this.input.scrollHeight + 2}px`;
  }

  /**
   * A switch to a conversation whose id is not known yet begins (New): typing goes on, but is not
   * saved as the draft of the conversation being left; `switchTo` keeps it in the box.
   */
  hold(): void {
    this.heldFrom ??= this.input.value;
  }

  /** The switch ended without a new conversation: what is in the box is the current one's draft again. */
  release(): void {
    if (this.heldFrom === null) return;
    this.heldFrom = null;
    this.saveDraft();
  }

  switchTo(conversationId: string): void {
    this.conversationId = conversationId;
    const typed = this.heldFrom !== null && this.input.value !== this.heldFrom;
    this.heldFrom = null;
    if (typed) {
      this.saveDraft();
      return;
    }
    const draft = this.storage.get(`draft:${conversationId}`) ?? "";
    // grow() reads layout; the same text keeps the height it has (opening a conversation at start-up
    // would otherwise force a second full layout just before the replay).
    if (this.sized && draft === this.input.value) return;
    this.input.value = draft;
    this.grow();
    this.sized = true;
  }

  saveDraft(): void {
    if (this.conversationId && this.heldFrom === null)
      this.storage.set(`draft:${this.conversationId}`, this.input.value);
  }

  /** Takes the text out for sending (the draft is cleared). */
  take(): string {
    const text = this.input.value.trim();
    if (text) this.set("");
    return text;
  }

  /** Puts text back after a failed send, ahead of anything typed since. */
  restore(text: string): void {
    const now = this.input.value;
    this.set(now.trim() ? `${text}\n${now}` : text);
  }

  set(text: string): void {
    this.input.value = text;
    this.grow();
    this.saveDraft();
  }
}
