// localStorage, namespaced by the page's mount path so two chat pages on one origin do not mix.
// Every access tolerates storage being unavailable (private mode, quota).

export class PageStorage {
  constructor(private readonly prefix: string) {}

  get(key: string): string | null {
    try {
      return localStorage.getItem(this.prefix + key);
    } catch {
      return null;
    }
  }

  set(key: string, value: string | null): void {
    try {
      if (value === null || value === "") localStorage.removeItem(this.prefix + key);
      else localStorage.setItem(this.prefix + key, value);
    } catch {
      // Storage full or blocked: the value simply is not remembered.
    }
  }
}
