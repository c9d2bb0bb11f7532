// A small action menu (WAI-ARIA menu button pattern): the button opens it and focus goes to the
// first item; Arrow keys, Home and End move between the items that can be used; Escape closes it
// and gives focus back to the button; Tab, a click outside or choosing an item closes it.

export class Menu {
  constructor(
    private readonly button: HTMLButtonElement,
    private readonly list: HTMLElement,
  ) {
    button.addEventListener("click", () => (this.isOpen ? this.close(true) : this.open()));
    button.addEventListener("keydown", (e) => {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        this.open(e.key === "ArrowUp" ? -1 : 0);
      }
    });
    list.addEventListener("keydown", (e) => this.onKey(e));
    // An item's own click handler runs first; the menu then closes.
    list.addEventListener("click", (e) => {
      if ((e.target as Element).closest("[role=menuitem]")) this.close(true);
    });
    document.addEventListener("pointerdown", (e) => {
      if (this.isOpen && !button.contains(e.target as Node) && !list.contains(e.target as Node))
        this.close(false);
    });
  }

  get isOpen(): boolean {
    return !this.list.hidden;
  }

  private items(): HTMLButtonElement[] {
    return [...this.list.querySelectorAll<HTMLButtonElement>("[role=menuitem]")].filter(
      (b) => !b.hidden && !b.disabled,
    );
  }

  open(index = 0): void {
    this.list.hidden = false;
    this.button.setAttribute("aria-expanded", "true");
    const items = this.items();
    (items.at(index) ?? this.list).focus();
  }

  close(refocus: boolean): void {
    if (!this.isOpen) return;
    this.list.hidden = true;
    this.button.setAttribute("aria-expanded", "false");
    if (refocus) this.button.focus();
  }

  private onKey(e: KeyboardEvent): void {
    const items = this.items();
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    const move = (i: number) => {
      e.preventDefault();
      items[(i + items.length) % items.length]?.focus();
    };
    if (e.key === "ArrowDown") move(at + 1);
    else if (e.key === "ArrowUp") move(at - 1);
    else if (e.key === "Home") move(0);
    else if (e.key === "End") move(items.length - 1);
    else if (e.key === "Escape") {
      e.preventDefault();
      this.close(true);
    } else if (e.key === "Tab") this.close(false);
  }
}
