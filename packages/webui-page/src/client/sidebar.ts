// The conversation sidebar: newest activity first, open / rename / delete. Titles are set with
// textContent only. Below 40rem it is an overlay opened from the header.
import { byId, h } from "./dom.js";
import { icon } from "./icons.js";

export interface ConversationItem {
  conversationId: string;
  title: string;
  updatedAt?: number;
  messageCount?: number;
}

export interface SidebarActions {
  open(id: string): void;
  rename(id: string, title: string): Promise<void>;
  remove(id: string): Promise<void>;
  /** Loads the next older page (see `showOlder`). */
  more(cursor: string): Promise<void>;
}

function sortNewestFirst(items: ConversationItem[]): ConversationItem[] {
  return [...items].sort((a, b) => (b.updatedAt ?? 0) - (a.updatedAt ?? 0));
}

export class Sidebar {
  private items: ConversationItem[] = [];
  /** Where the next older page starts (the server's `nextCursor`); none when all are listed. */
  private cursor: string | undefined;
  /** Whether older pages were added to the first one (a refresh then keeps them). */
  private olderShown = false;
  private current = "";
  private locked = false;
  private readonly list = byId<HTMLUListElement>("conv-list");
  private readonly app = byId("app");
  private readonly backdrop = byId("backdrop");
  private readonly openBtn = byId<HTMLButtonElement>("open-sidebar");

  constructor(private readonly actions: SidebarActions) {
    this.openBtn.addEventListener("click", () => this.setOverlay(true));
    byId("close-sidebar").addEventListener("click", () => this.setOverlay(false));
    this.backdrop.addEventListener("click", () => this.setOverlay(false));
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && this.app.classList.contains("sidebar-open")) this.setOverlay(false);
    });
  }

  setOverlay(open: boolean): void {
    this.app.classList.toggle("sidebar-open", open);
    this.backdrop.hidden = !open;
    this.openBtn.setAttribute("aria-expanded", String(open));
    if (open) byId("new-conv").focus();
    else if (document.activeElement && byId("sidebar").contains(document.activeElement)) this.openBtn.focus();
  }

  get conversations(): readonly ConversationItem[] {
    return this.items;
  }

  /**
   * The newest page from the server. Older pages the reader already opened stay below it (minus
   * rows that moved into this page or are gone), with their own cursor.
   */
  update(items: ConversationItem[], current: string, nextCursor?: string): void {
    let older: ConversationItem[] = [];
    if (this.olderShown && nextCursor !== undefined) {
      const ids = new Set(items.map((c) => c.conversationId));
      const oldest = Math.min(...items.map((c) => c.updatedAt ?? 0));
      older = this.items.filter((c) => !ids.has(c.conversationId) && (c.updatedAt ?? 0) <= oldest);
    } else {
      this.olderShown = false;
      this.cursor = nextCursor;
    }
    this.items = [...sortNewestFirst(items), ...older];
    this.current = current;
    this.render();
  }

  /** Appends an older page below what is listed. */
  showOlder(items: ConversationItem[], nextCursor?: string): void {
    const ids = new Set(this.items.map((c) => c.conversationId));
    this.items.push(...sortNewestFirst(items.filter((c) => !ids.has(c.conversationId))));
    this.cursor = nextCursor;
    this.olderShown = true;
    this.render();
  }

  /** Drops a deleted conversation at once (it may sit in an older page a refresh does not re-read). */
  forget(id: string): void {
    this.items = this.items.filter((c) => c.conversationId !== id);
    this.render();
  }

  setCurrent(id: string): void {
    this.current = id;
    this.render();
  }

  /** While a reply streams, switching conversations is disabled. */
  lock(locked: boolean): void {
    this.locked = locked;
    for (const b of this.list.querySelectorAll<HTMLButtonElement>("button")) b.disabled = locked;
  }

  private render(): void {
    const rows = this.items.map((c) => this.row(c));
    const cursor = this.cursor;
    if (cursor !== undefined) {
      const more = h("button", {
        class: "btn conv-more",
        text: "Show older conversations",
        attrs: { type: "button" },
      });
      more.addEventListener("click", () => {
        more.disabled = true;
        void this.actions.more(cursor).finally(() => {
          more.disabled = this.locked;
        });
      });
      rows.push(h("li", { class: "conv conv-more-row" }, more));
    }
    this.list.replaceChildren(...rows);
    if (this.locked) this.lock(true);
  }

  private row(c: ConversationItem): HTMLLIElement {
    const title = c.title || "New conversation";
    const open = h("button", { class: "conv-open", text: title, attrs: { type: "button", title } });
    open.addEventListener("click", () => {
      this.actions.open(c.conversationId);
      this.setOverlay(false);
    });
    const rename = h("button", {
      class: "icon-btn",
      text: "✎",
      attrs: { type: "button", "aria-label": `Rename ${title}` },
    });
    rename.addEventListener("click", () => this.editTitle(li, c));
    const del = h(
      "button",
      { class: "icon-btn", attrs: { type: "button", "aria-label": `Delete ${title}` } },
      icon("trash"),
    );
    let armed: number | undefined;
    del.addEventListener("click", () => {
      // Two clicks: the first arms the button for a few seconds (no browser confirm dialog).
      if (armed === undefined) {
        del.textContent = "Delete?";
        del.classList.add("armed");
        del.setAttribute("aria-label", `Confirm delete ${title}`);
        armed = window.setTimeout(() => {
          armed = undefined;
          del.replaceChildren(icon("trash"));
          del.classList.remove("armed");
          del.setAttribute("aria-label", `Delete ${title}`);
        }, 4000);
        return;
      }
      window.clearTimeout(armed);
      void this.actions.remove(c.conversationId);
    });
    const li = h("li", { class: "conv" }, open, rename, del);
    if (c.conversationId === this.current) li.setAttribute("aria-current", "true");
    return li;
  }

  private editTitle(li: HTMLLIElement, c: ConversationItem): void {
    const input = h("input", {
      class: "conv-edit",
      attrs: { "aria-label": "Conversation title", maxlength: "60" },
    });
    input.value = c.title;
    const save = h("button", {
      class: "icon-btn",
      text: "✓",
      attrs: { type: "button", "aria-label": "Save title" },
    });
    const cancel = h("button", {
      class: "icon-btn",
      text: "✕",
      attrs: { type: "button", "aria-label": "Cancel rename" },
    });
    const commit = async () => {
      const title = input.value.replace(/\s+/g, " ").trim();
      if (!title || title === c.title) return this.render();
      await this.actions.rename(c.conversationId, title);
    };
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.isComposing) {
        e.preventDefault();
        void commit();
      } else if (e.key === "Escape") {
        e.stopPropagation();
        this.render();
      }
    });
    save.addEventListener("click", () => void commit());
    cancel.addEventListener("click", () => this.render());
    li.replaceChildren(input, save, cancel);
    input.focus();
    input.select();
  }
}
