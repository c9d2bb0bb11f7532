// Runs from <head>, before the body is parsed and the main script is compiled: starts the reads the
// first screen needs (/info, /conversations and the last-opened conversation's /history), so the
// network overlaps parsing, the first layout and script start-up instead of following them.
// main.ts adopts these responses (see `takeEarlyReads`); a page without this script still works.
import type { EarlyRead, EarlyReads } from "./early-reads.js";

(() => {
  const script = document.currentScript as HTMLScriptElement | null;
  const base = script?.dataset.apiBase;
  const prefix = script?.dataset.storagePrefix;
  if (!base || !prefix) return;
  const read = (key: string): string | null => {
    try {
      return localStorage.getItem(prefix + key);
    } catch {
      return null;
    }
  };
  const key = read("apiKey");
  const last = read("last");
  const get = (route: string): EarlyRead => {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (key) headers["X-API-Key"] = key;
    const response = fetch(base + route, { headers, credentials: "same-origin" });
    // Parsed here, as the answer arrives (usually while the rest of the page is still parsed): the
    // main script then finds the bodies ready and shows the conversation in the task that runs it,
    // before the next frame, instead of a task later per body read.
    const body = response.then((r) => (r.ok ? r.json() : undefined));
    // Unused or failed, neither may surface as unhandled.
    response.catch(() => {});
    body.catch(() => {});
    return { response, body };
  };
  const reads: EarlyReads = {
    key,
    last,
    info: get("/info"),
    conversations: get("/conversations"),
  };
  if (last) reads.history = get(`/history?${new URLSearchParams({ conversationId: last })}`);
  (window as { agentsvcEarlyReads?: EarlyReads }).agentsvcEarlyReads = reads;
})();
