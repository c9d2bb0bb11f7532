// Tiny DOM helpers. Text always goes in through textContent / Text nodes, never as markup.

type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: { class?: string; text?: string; attrs?: Record<string, string> } = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props.class) el.className = props.class;
  if (props.text !== undefined) el.textContent = props.text;
  for (const [k, v] of Object.entries(props.attrs ?? {})) el.setAttribute(k, v);
  for (const c of children) if (c) el.append(c);
  return el;
}

export function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`webui page: element #${id} is missing`);
  return el as T;
}

/**
 * Runs `fn` and keeps the view pinned to the bottom only if it was there before. The scroller is a
 * reversed column (page.css): its scrollTop is 0 at the bottom and negative above, and at 0 growth
 * at the bottom keeps the view there by itself; only a view just short of the bottom is moved.
 */
export function keepPinned(scroller: HTMLElement, fn: () => void): void {
  const fromBottom = -scroller.scrollTop;
  fn();
  if (fromBottom > 0 && fromBottom < 48) scroller.scrollTop = 0;
}
