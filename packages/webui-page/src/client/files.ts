// Files on the page (issue #46): the tray of attachments waiting in the composer (picked with the
// button, pasted or dropped; refused here when too large or of a kind the entry does not take,
// uploaded at once with progress) and the files of a message in the transcript (pictures as
// thumbnails that open large, other files as chips with name and size). Names are text, never markup.
import type { Api, UploadedFile } from "./api.js";
import { h } from "./dom.js";

export interface MediaLimits {
  maxBytes: number;
  types: readonly string[];
}

/** A file of a stored message (what `/history` carries) or of one just sent. */
export interface MessageFile {
  id: string;
  name: string;
  contentType: string;
  size: number;
  /** What the server's transcription model heard in an audio file (shown under its chip, as text). */
  transcript?: string;
}

const NOUN: Record<string, string> = {
  image: "pictures",
  audio: "audio",
  video: "videos",
  document: "documents",
};

function kindOf(type: string): string {
  const top = type.split("/")[0] ?? "";
  return top === "image" || top === "audio" || top === "video" ? top : "document";
}

/** Pictures the browser shows from the server (the server serves the rest as downloads). */
const INLINE = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

export function formatSize(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} B`;
}

/** What the entry takes, in words: "pictures, documents up to 20 MB". */
export function limitsText(limits: MediaLimits): string {
  return `${limits.types.map((t) => NOUN[t] ?? t).join(", ")} up to ${formatSize(limits.maxBytes)}`;
}

/** The `accept` list of the file picker: the kinds taken (any file when documents are). */
function acceptOf(types: readonly string[]): string {
  if (types.includes("document")) return "";
  return types.map((t) => `${t}/*`).join(",");
}

const MAX_FILES = 10;

interface Pending {
  chip: HTMLElement;
  local: string | undefined;
  controller: AbortController;
  done: Promise<UploadedFile | null>;
  uploaded?: UploadedFile;
}

/** The attachments waiting in the composer. */
export class FileTray {
  private items: Pending[] = [];

  constructor(
    private readonly api: Api,
    private readonly tray: HTMLElement,
    private readonly limits: MediaLimits,
    private readonly say: (text: string) => void,
    button: HTMLButtonElement,
    picker: HTMLInputElement,
    dropZone: HTMLElement,
    input: HTMLTextAreaElement,
  ) {
    const hint = `Attach ${limitsText(limits)}`;
    button.title = hint;
    button.setAttribute("aria-label", hint);
    const accept = acceptOf(limits.types);
    if (accept) picker.accept = accept;
    button.addEventListener("click", () => picker.click());
    picker.addEventListener("change", () => {
      this.add([...(picker.files ?? [])]);
      picker.value = "";
    });
    input.addEventListener("paste", (e) => {
      const files = [...(e.clipboardData?.files ?? [])];
      // Cells copied from a spreadsheet come with a picture of themselves: text, when there is
      // some, is what was meant.
      if (files.length === 0 || e.clipboardData?.types.includes("text/plain")) return;
      e.preventDefault();
      this.add(files);
    });
    const hasFiles = (e: DragEvent) => e.dataTransfer?.types.includes("Files") === true;
    dropZone.addEventListener("dragover", (e) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      dropZone.classList.add("dropping");
      dropZone.dataset.hint = `Drop ${limitsText(limits)}`;
    });
    dropZone.addEventListener("dragleave", (e) => {
      if (e.relatedTarget instanceof Node && dropZone.contains(e.relatedTarget)) return;
      dropZone.classList.remove("dropping");
    });
    dropZone.addEventListener("drop", (e) => {
      dropZone.classList.remove("dropping");
      if (!hasFiles(e)) return;
      e.preventDefault();
      this.add([...(e.dataTransfer?.files ?? [])]);
    });
  }

  /** Checks each file against the limits (a clear line for a refused one) and starts its upload. */
  add(files: File[]): void {
    for (const file of files) {
      const kind = kindOf(file.type);
      if (this.items.length >= MAX_FILES) {
        this.say(`At most ${MAX_FILES} files per message.`);
        break;
      }
      if (!this.limits.types.includes(kind)) {
        this.say(`"${file.name}" was not attached: this chat takes ${limitsText(this.limits)}.`);
        continue;
      }
      if (file.size > this.limits.maxBytes) {
        this.say(
          `"${file.name}" is too large (${formatSize(file.size)}); the limit is ${formatSize(this.limits.maxBytes)}.`,
        );
        continue;
      }
      if (file.size === 0) {
        this.say(`"${file.name}" is empty.`);
        continue;
      }
      this.start(file, kind);
    }
    this.tray.hidden = this.items.length === 0;
  }

  private start(file: File, kind: string): void {
    const local = kind === "image" && INLINE.has(file.type) ? URL.createObjectURL(file) : undefined;
    const progress = h("progress", {
      attrs: { max: "1", value: "0", "aria-label": `Uploading ${file.name}` },
    });
    const remove = h("button", {
      class: "chip-x",
      text: "✕",
      attrs: { type: "button", "aria-label": `Remove ${file.name}` },
    });
    const chip = h(
      "div",
      { class: "file-chip pending" },
      local ? h("img", { class: "mini", attrs: { src: local, alt: "" } }) : null,
      h("span", { class: "file-name", text: file.name }),
      h("span", { class: "file-size", text: formatSize(file.size) }),
      progress,
      remove,
    );
    const controller = new AbortController();
    const item: Pending = { chip, local, controller, done: Promise.resolve(null) };
    item.done = this.api
      .upload(file, (f) => progress.setAttribute("value", String(f)), controller.signal)
      .then(
        (uploaded) => {
          item.uploaded = uploaded;
          chip.classList.remove("pending");
          progress.remove();
          return uploaded;
        },
        (err: unknown) => {
          if (controller.signal.aborted) return null;
          chip.classList.replace("pending", "failed");
          progress.remove();
          const code = (err as { code?: string }).code;
          const why =
            code === "file_too_large"
              ? "too large"
              : code === "unsupported_file_type"
                ? "not a kind this chat takes"
                : "upload failed";
          chip.append(h("span", { class: "file-error", text: why }));
          this.say(`"${file.name}" could not be attached: ${why}.`);
          return null;
        },
      );
    remove.addEventListener("click", () => this.drop(item));
    this.items.push(item);
    this.tray.append(chip);
  }

  private drop(item: Pending): void {
    item.controller.abort();
    item.chip.remove();
    // The preview is no longer shown anywhere: its blob: URL would hold the file's bytes until the tab closes.
    if (item.local) URL.revokeObjectURL(item.local);
    this.items = this.items.filter((i) => i !== item);
    this.tray.hidden = this.items.length === 0;
  }

  /** Puts files back after a send failed (they are stored already: no upload again). */
  restore(files: MessageFile[]): void {
    for (const f of files) {
      const remove = h("button", {
        class: "chip-x",
        text: "✕",
        attrs: { type: "button", "aria-label": `Remove ${f.name}` },
      });
      const chip = h(
        "div",
        { class: "file-chip" },
        h("span", { class: "file-name", text: f.name }),
        h("span", { class: "file-size", text: formatSize(f.size) }),
        remove,
      );
      const uploaded: UploadedFile = {
        id: f.id,
        name: f.name,
        contentType: f.contentType,
        kind: "",
        size: f.size,
      };
      const item: Pending = {
        chip,
        local: undefined,
        controller: new AbortController(),
        done: Promise.resolve(uploaded),
        uploaded,
      };
      remove.addEventListener("click", () => this.drop(item));
      this.items.push(item);
      this.tray.append(chip);
    }
    this.tray.hidden = this.items.length === 0;
  }

  get empty(): boolean {
    return this.items.length === 0;
  }

  /**
   * The uploaded files for a message (waiting for uploads still running); the tray is emptied.
   * Failed ones stay out (they were reported); undefined when one is still uploading and was removed.
   */
  async take(): Promise<MessageFile[]> {
    const items = this.items;
    await Promise.all(items.map((i) => i.done));
    const taken = items.filter((i) => i.uploaded && this.items.includes(i));
    for (const i of items) {
      i.chip.remove();
      // A sent picture's preview becomes the page's one URL for that file (the message shows it);
      // a failed one's is shown nowhere now.
      if (i.local && i.uploaded && taken.includes(i)) adopt(i.uploaded.id, i.local);
      else if (i.local && this.items.includes(i)) URL.revokeObjectURL(i.local);
    }
    this.items = this.items.filter((i) => !items.includes(i));
    this.tray.hidden = this.items.length === 0;
    return taken.map((i) => ({ ...(i.uploaded as UploadedFile) }));
  }
}

/**
 * A stored file as a blob: URL, fetched once per page (a replay after a switch, the enlarged view
 * and a second message with the same file reuse it); a failed fetch is tried again next time.
 */
const fetched = new Map<string, Promise<string>>();

/** A preview's blob: URL kept as the file's URL; when the file has one already, the preview goes. */
function adopt(id: string, local: string): void {
  if (fetched.has(id)) URL.revokeObjectURL(local);
  else fetched.set(id, Promise.resolve(local));
}

function urlOf(api: Api, id: string, name: string): Promise<string> {
  let url = fetched.get(id);
  if (!url) {
    url = api.fileUrl(id, name);
    fetched.set(id, url);
    url.catch(() => fetched.delete(id));
  }
  return url;
}

/** The files of a message in the transcript: thumbnails (click opens them large) and chips. */
export function fileViews(api: Api, files: readonly MessageFile[]): HTMLElement {
  const box = h("div", { class: "files" });
  for (const f of files) {
    const name = typeof f.name === "string" && f.name ? f.name : "file";
    if (INLINE.has(f.contentType)) {
      const img = h("img", { attrs: { alt: name } });
      const thumb = h(
        "button",
        { class: "thumb", attrs: { type: "button", "aria-label": `Open ${name}` } },
        img,
      );
      const url = urlOf(api, f.id, name);
      url.then(
        (u) => img.setAttribute("src", u),
        () => thumb.replaceWith(chip(api, f, name)),
      );
      thumb.addEventListener("click", () => void url.then((u) => openLightbox(u, name)));
      box.append(thumb);
    } else if (typeof f.transcript === "string" && f.transcript) {
      box.append(
        h(
          "div",
          { class: "audio" },
          chip(api, f, name),
          h("p", { class: "file-transcript", text: f.transcript }),
        ),
      );
    } else box.append(chip(api, f, name));
  }
  return box;
}

function chip(api: Api, f: MessageFile, name: string): HTMLElement {
  const el = h(
    "button",
    { class: "file-chip", attrs: { type: "button", title: `Download ${name}` } },
    h("span", { class: "file-name", text: name }),
    h("span", { class: "file-size", text: formatSize(f.size) }),
  );
  el.addEventListener("click", async () => {
    const url = await urlOf(api, f.id, name).catch(() => undefined);
    if (!url) return;
    const a = h("a", { attrs: { href: url, download: name } });
    a.click();
  });
  return el;
}

function openLightbox(url: string, name: string): void {
  const dialog = document.getElementById("lightbox") as HTMLDialogElement | null;
  const img = document.getElementById("lightbox-img") as HTMLImageElement | null;
  if (!dialog || !img) return;
  img.src = url;
  img.alt = name;
  dialog.showModal();
}

/** Closing the enlarged picture: its button, a click beside the picture, or Escape (the dialog's own). */
export function wireLightbox(): void {
  const dialog = document.getElementById("lightbox") as HTMLDialogElement | null;
  if (!dialog) return;
  document.getElementById("lightbox-close")?.addEventListener("click", () => dialog.close());
  dialog.addEventListener("click", (e) => {
    if (e.target === dialog) dialog.close();
  });
}
