// Light / dark / follow-system. The choice is applied as data-theme on <html>, kept in storage
// (so it survives a failed request) and saved as the `theme` preference on the server.

export type ThemeMode = "system" | "light" | "dark";
const ORDER: ThemeMode[] = ["system", "light", "dark"];
const LABEL: Record<ThemeMode, string> = { system: "follow system", light: "light", dark: "dark" };
const GLYPH: Record<ThemeMode, string> = { system: "◐", light: "☀", dark: "☾" };

export function isThemeMode(v: unknown): v is ThemeMode {
  return v === "system" || v === "light" || v === "dark";
}

export function applyTheme(mode: ThemeMode, button: HTMLElement | null): void {
  if (mode === "system") document.documentElement.removeAttribute("data-theme");
  else document.documentElement.setAttribute("data-theme", mode);
  if (button) {
    button.textContent = GLYPH[mode];
    button.setAttribute("aria-label", `Theme: ${LABEL[mode]} (change)`);
    button.title = `Theme: ${LABEL[mode]}`;
  }
}

export function nextTheme(mode: ThemeMode): ThemeMode {
  return ORDER[(ORDER.indexOf(mode) + 1) % ORDER.length]!;
}
