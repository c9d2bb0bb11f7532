// The chat page's client: wires the API to the transcript, composer, sidebar and dialogs.
import { TurnAccumulator } from "./accumulate.js";
import { takeEarlyReads } from "./early-reads.js";
import { Api, ApiError, type AuthCode } from "./api.js";
import { Auth } from "./auth.js";
import { Composer } from "./composer.js";
import { FileTray, fileViews, type MediaLimits, type MessageFile, wireLightbox } from "./files.js";
import { byId } from "./dom.js";
import { type ConversationItem, Sidebar } from "./sidebar.js";
import { PageStorage } from "./storage.js";
import { canDraw, useFallbackIcon } from "./emoji-icon.js";
import { Menu } from "./menu.js";
import { failureMessage, plainMessage } from "./messages.js";
import { consumeStream } from "./stream.js";
import { applyTheme, isThemeMode, nextTheme, type ThemeMode } from "./theme-toggle.js";
import { type AssistantBubble, type PendingApproval, Transcript } from "./transcript.js";

interface PageConfig {
  icon: { kind: "emoji"; value: string } | { kind: "image"; src: string } | null;
  /** With an emoji icon: the built-in icon, used when no font draws the emoji. */
  fallbackIcon?: string;
  apiBase: string;
  path: string;
  title: string;
  welcome: string;
  showReasoning: boolean;
  showToolCalls: boolean;
  signIn: boolean;
  /** Uploads: the entry's kinds and byte cap; null when files are off. */
  media?: MediaLimits | null;
}

interface Info {
  agentName?: string;
  modelName?: string;
  capabilities?: Partial<Record<"compact" | "steer" | "cancel" | "approvals" | "signIn" | "apiKey", boolean>>;
}

interface HistoryMessage {
  role: string;
  content?: string;
  reasoning?: string;
  toolCalls?: { id: string; name: string; arguments: unknown }[];
  toolCallId?: string;
  result?: unknown;
  isError?: boolean;
  /** On the result of an approval-gated call: what was decided. */
  decision?: { decision?: unknown };
  /** A reply a failure cut short (stored with what had streamed). */
  interrupted?: boolean;
  /** A user message's files (blob refs; refused ones carry no blob). */
  attachments?: { blob?: string; contentType?: string; size?: number; name?: string; transcript?: unknown }[];
}

/** A stored message's files as the transcript shows them. */
function filesOf(m: HistoryMessage): MessageFile[] {
  const files: MessageFile[] = [];
  for (const a of m.attachments ?? []) {
    if (typeof a.blob !== "string") continue;
    files.push({
      id: a.blob,
      name: a.name ?? "file",
      contentType: a.contentType ?? "",
      size: a.size ?? 0,
      ...(typeof a.transcript === "string" ? { transcript: a.transcript } : {}),
    });
  }
  return files;
}

/** A message's files as nodes for its bubble (undefined when it has none). */
function filesView(files: MessageFile[]): HTMLElement | undefined {
  return files.length > 0 ? fileViews(api, files) : undefined;
}

interface Turn {
  threadId: string | undefined;
  /** The conversation the turn runs in (the page may switch away while it streams). */
  conversation?: string;
  /** What the user sent (a new turn only): shown again when a reload follows the run. */
  input?: string;
  /** The files sent with it (shown again too). */
  files?: MessageFile[];
  /** Their view in the user's bubble (replaced when the server's transcripts are in). */
  filesEl?: HTMLElement;
  controller: AbortController;
  bubble: AssistantBubble;
  acc: TurnAccumulator;
  stopped: boolean;
}

const config = JSON.parse(byId("agentsvc-config").textContent ?? "{}") as PageConfig;
const storage = new PageStorage(`agentsvc:${config.path}:`);
const statusLine = byId("status");
const sendBtn = byId<HTMLButtonElement>("send-btn");
const stopBtn = byId<HTMLButtonElement>("stop-btn");
const clearBtn = byId<HTMLButtonElement>("clear-btn");
const compactBtn = byId<HTMLButtonElement>("compact-btn");
const newBtn = byId<HTMLButtonElement>("new-conv");
const themeBtn = byId<HTMLButtonElement>("theme-toggle");
const keyBtn = byId<HTMLButtonElement>("key-btn");

let info: Info = {};
let current = "default";
let turn: Turn | null = null;
let signedIn = false;
let theme: ThemeMode = isThemeMode(storage.get("theme")) ? (storage.get("theme") as ThemeMode) : "system";
applyTheme(theme, themeBtn);

const status = (text: string) => {
  statusLine.textContent = text;
};

const api = new Api(
  config.apiBase,
  () => storage.get("apiKey"),
  (code: AuthCode) => onAuthRequired(code),
);
const transcript = new Transcript(byId("transcript"), byId("messages"), byId("welcome"), config);
const composer = new Composer(byId("composer"), byId("input"), storage, () => void submit());
const tray = config.media
  ? new FileTray(
      api,
      byId("file-tray"),
      config.media,
      status,
      byId<HTMLButtonElement>("attach-btn"),
      byId<HTMLInputElement>("file-input"),
      byId("app"),
      composer.input,
    )
  : null;
const auth = new Auth(api, storage, {
  keySaved: () => void boot(),
  signedIn: () => void boot(),
  signedOut: () => {
    signedIn = false;
    transcript.clear();
    sidebar.update([], current);
  },
});
const sidebar = new Sidebar({
  open: (id) => void openConversation(id),
  rename: async (id, title) => {
    try {
      await api.post("/conversations/rename", { conversationId: id, title });
      status("Conversation renamed.");
    } catch (err) {
      report(err);
    }
    await refreshConversations();
  },
  remove: async (id) => {
    try {
      await api.post("/conversations/delete", { conversationId: id });
      storage.set(`draft:${id}`, null);
      storage.set(`pending:${id}`, null);
      status("Conversation deleted.");
    } catch (err) {
      report(err);
    }
    sidebar.forget(id);
    const items = await refreshConversations();
    if (id === current) await openConversation(items[0]?.conversationId ?? "default");
  },
  more: async (cursor) => {
    try {
      const r = await api.get<ConversationList>("/conversations", { cursor });
      sidebar.showOlder(r.conversations, r.nextCursor);
    } catch (err) {
      report(err);
    }
  },
});

function onAuthRequired(code: AuthCode): void {
  if (code === "api_key_required") {
    keyBtn.hidden = false;
    auth.promptKey(
      storage.get("apiKey") ? "The saved API key was not accepted." : "This chat needs an API key.",
    );
  } else {
    auth.promptSignIn();
  }
}

/** Shows what went wrong in plain words; 401s are already handled by their prompts. */
/**
 * While the service cannot be reached, ask `/info` every few seconds (quietly); the first answer
 * clears the notice, unless something else has been said since.
 */
let probing = false;
function watchUntilReachable(): void {
  if (probing) return;
  probing = true;
  const notice = plainMessage("network");
  const probe = async () => {
    try {
      await api.get<Info>("/info", {}, true);
      probing = false;
      if (statusLine.textContent === notice) status("");
    } catch {
      setTimeout(() => void probe(), 3000);
    }
  };
  setTimeout(() => void probe(), 3000);
}

function report(err: unknown): void {
  if (err instanceof ApiError) {
    if (err.status === 401) status("Waiting for you to sign in or enter the API key.");
    else status(plainMessage(err.code, err.status));
    if (err.code === "network") watchUntilReachable();
  } else if (!(err instanceof DOMException && err.name === "AbortError")) {
    status("Something went wrong; please try again.");
  }
}

function setBusy(busy: boolean): void {
  const canSteer = info.capabilities?.steer !== false;
  sendBtn.textContent = busy && canSteer ? "Steer" : "Send";
  sendBtn.disabled = busy && !canSteer;
  stopBtn.hidden = !busy || info.capabilities?.cancel === false;
  stopBtn.disabled = false;
  clearBtn.disabled = busy;
  compactBtn.disabled = busy;
  newBtn.disabled = busy;
  sidebar.lock(busy);
  byId("transcript").setAttribute("aria-busy", String(busy));
}

/**
 * Conversation switches in progress (New, or opening one up to its history on screen). A message
 * sent meanwhile waits for them: it belongs to the conversation being opened, after its history.
 */
const switches = new Set<Promise<unknown>>();

function switching<T>(work: Promise<T>): Promise<T> {
  switches.add(work);
  const done = () => switches.delete(work);
  work.then(done, done);
  return work;
}

async function switched(): Promise<void> {
  while (switches.size > 0) await Promise.allSettled([...switches]);
}

async function submit(): Promise<void> {
  if (turn) return steer();
  if (!composer.input.value.trim() && (tray?.empty ?? true)) return;
  const text = composer.take();
  const controller = new AbortController();
  let res: Response;
  let files: MessageFile[] = [];
  setBusy(true);
  try {
    // Uploads still running finish first; a message is its text and the files that made it.
    files = (await tray?.take()) ?? [];
    if (!text && files.length === 0) throw new DOMException("nothing to send", "AbortError");
    await switched();
    await ensureOwnConversation();
    const attachments = files.map((f) => ({ id: f.id, name: f.name }));
    res = await api.stream(
      "/stream",
      { input: text, conversationId: current, ...(attachments.length ? { attachments } : {}) },
      controller.signal,
    );
  } catch (err) {
    setBusy(false);
    if (text) composer.restore(text);
    tray?.restore(files);
    report(err);
    return;
  }
  const filesEl = filesView(files);
  transcript.addUser(text, { files: filesEl });
  const bubble = transcript.addAssistant();
  const t: Turn = {
    threadId: undefined,
    conversation: current,
    input: text,
    files,
    ...(filesEl ? { filesEl } : {}),
    controller,
    bubble,
    acc: new TurnAccumulator(),
    stopped: false,
  };
  turn = t;
  transcript.scrollToEnd();
  status("Assistant is replying…");
  await runStream(t, res);
}

/**
 * Conversation rows are keyed by id across the whole store, so the fallback id "default" belongs to
 * whoever used it first: another signed-in user (or another entry on the same store) would be refused
 * with 403. Before the first turn of a visitor who has no conversation yet, ask the server for a
 * fresh id instead (nothing is created until something is sent).
 */
async function ensureOwnConversation(): Promise<void> {
  if (current !== "default" || sidebar.conversations.some((c) => c.conversationId === current)) return;
  composer.hold();
  let r: { conversationId: string };
  try {
    r = await api.post<{ conversationId: string }>("/conversations/create", {});
  } catch (err) {
    composer.release();
    throw err;
  }
  current = r.conversationId;
  storage.set("last", current);
  composer.switchTo(current);
  sidebar.setCurrent(current);
}

async function runStream(t: Turn, res: Response): Promise<void> {
  t.bubble.setStreaming(true);
  let failed = false;
  const end = await consumeStream(
    res,
    {
      thread: (id) => {
        t.threadId = id;
        // A reload while this streams finds the run again (reattach below).
        if (t.conversation && t.input !== undefined)
          storage.set(
            `streaming:${t.conversation}`,
            JSON.stringify({ threadId: id, input: t.input, files: t.files }),
          );
      },
      chunk: (envelope) => {
        const d = t.acc.apply(envelope);
        if (d.reasoning) t.bubble.appendReasoning(d.reasoning);
        for (const tool of d.tools) t.bubble.upsertTool(tool);
        if (d.content) t.bubble.setText(t.acc.content);
      },
      // A sentence per code in plain words; the server's text (maybe the provider's) is not shown.
      error: (code, _message, retryAfterMs) => {
        failed = true;
        t.bubble.addNote(failureMessage(code, retryAfterMs), "error");
      },
      // A reply cut at the model's output limit reads as whole unless the page says so.
      done: (finishReason) => {
        if (finishReason === "length") t.bubble.addNote("The reply was cut off at the model's length limit.");
      },
    },
    t.controller.signal,
  );
  // Kept when the body was cut without a stop: a reload (which cuts it too) follows the run again.
  if (t.conversation && (end === "done" || t.stopped)) storage.set(`streaming:${t.conversation}`, null);
  t.bubble.setStreaming(false);
  t.bubble.flush();
  t.bubble.finishTools(t.acc.toolCalls);
  if (t.stopped || end === "aborted") {
    t.bubble.addNote("Stopped.");
    status("Reply stopped.");
  } else if (end === "dropped") {
    t.bubble.addNote("The connection dropped; the reply may be incomplete.", "error");
    status("Reply interrupted.");
  } else {
    status(failed ? "Reply failed." : "Reply finished.");
  }
  if (t.filesEl && t.files?.some((f) => f.contentType.startsWith("audio/")))
    void showTranscripts(t, t.filesEl);
  turn = null;
  setBusy(false);
  if (t.acc.suspended && t.threadId && !t.stopped) {
    storage.set(`pending:${current}`, t.threadId);
    await showApproval(t.bubble, t.threadId, t.acc);
  }
  void refreshConversations();
}

/**
 * An audio file's transcript is made by the server before the model reads the message; once the
 * reply ends, the sent message's files are shown again from `/history` with it. A failed read only
 * leaves it for the next replay.
 */
async function showTranscripts(t: Turn, el: HTMLElement): Promise<void> {
  const ids = new Set((t.files ?? []).map((f) => f.id));
  try {
    const r = await api.get<{ messages?: HistoryMessage[] }>(
      "/history",
      t.conversation ? { conversationId: t.conversation } : {},
    );
    const sent = [...(r.messages ?? [])]
      .reverse()
      .find(
        (m) =>
          m.role === "user" && (m.attachments ?? []).some((a) => a.blob !== undefined && ids.has(a.blob)),
      );
    const files = sent ? filesOf(sent) : [];
    if (files.some((f) => f.transcript) && el.isConnected) el.replaceWith(fileViews(api, files));
  } catch {
    // Shown on the next replay.
  }
}

async function showApproval(bubble: AssistantBubble, threadId: string, acc: TurnAccumulator): Promise<void> {
  let pending: PendingApproval | null;
  try {
    pending = (await api.get<{ pending: PendingApproval | null }>("/pending", { threadId })).pending;
  } catch (err) {
    report(err);
    return;
  }
  if (!pending) {
    storage.set(`pending:${current}`, null);
    return;
  }
  status(`Approval needed for ${pending.toolName}.`);
  const card = bubble.addApproval(pending, async (decision) => {
    const controller = new AbortController();
    let res: Response;
    try {
      res = await api.stream("/resume", { threadId, decision }, controller.signal);
    } catch (err) {
      report(err);
      for (const b of card.querySelectorAll("button")) b.disabled = false;
      return;
    }
    storage.set(`pending:${current}`, null);
    bubble.settleApproval(card, decision);
    acc.suspended = false;
    const t: Turn = { threadId, controller, bubble, acc, stopped: false };
    turn = t;
    setBusy(true);
    status("Assistant is replying…");
    await runStream(t, res);
  });
}

async function steer(): Promise<void> {
  const t = turn;
  if (!t) return;
  if (!t.threadId) {
    status("The reply has not started yet; your message is still in the composer.");
    return;
  }
  const text = composer.take();
  if (!text) return;
  try {
    const r = await api.post<{ steered?: boolean }>("/steer", { threadId: t.threadId, input: text });
    if (r.steered) {
      transcript.addUser(text, { steer: true, before: t.bubble.root });
      status("Message sent into the running reply.");
    } else {
      composer.restore(text);
      status("The reply had already finished; your message is back in the composer.");
    }
  } catch (err) {
    composer.restore(text);
    report(err);
  }
}

async function stop(): Promise<void> {
  const t = turn;
  if (!t) return;
  t.stopped = true;
  stopBtn.disabled = true;
  // Cancel on the server first (the run stops at its next checkpoint), then stop reading.
  if (t.threadId) {
    try {
      await api.post("/cancel", { threadId: t.threadId });
    } catch {
      // The local abort below still stops the reply on this page.
    }
  }
  t.controller.abort();
}

async function clearConversation(): Promise<void> {
  try {
    await api.post("/clear", { conversationId: current });
    transcript.clear();
    storage.set(`pending:${current}`, null);
    status("Conversation cleared.");
    void refreshConversations();
  } catch (err) {
    if (err instanceof ApiError && err.code === "approval_pending") {
      status("A reply is waiting for your approval; approve or reject it before clearing.");
    } else report(err);
  }
}

async function compact(): Promise<void> {
  try {
    const r = await api.post<{ compacted: boolean; before: number; after: number }>("/compact", {
      conversationId: current,
    });
    // Show what the server now holds: the summary in place of the older messages.
    if (r.compacted) await openConversation(current);
    status(
      r.compacted
        ? `Compacted: ${r.before} messages became ${r.after}.`
        : `Nothing to compact (${r.before} message${r.before === 1 ? "" : "s"}).`,
    );
  } catch (err) {
    report(err);
  }
}

type ConversationList = { conversations: ConversationItem[]; nextCursor?: string };

async function refreshConversations(prefetched?: Promise<ConversationList>): Promise<ConversationItem[]> {
  try {
    const r = await (prefetched ?? api.get<ConversationList>("/conversations"));
    sidebar.update(r.conversations, current, r.nextCursor);
  } catch (err) {
    report(err);
  }
  return [...sidebar.conversations];
}

/**
 * Stored messages cut into on-screen units: a user line, a summary, or one assistant reply with
 * every step and tool result until the next user message (what `replayMessages` turns into one
 * element each), so the transcript can group and build them separately.
 */
function replayUnits(messages: HistoryMessage[]): HistoryMessage[][] {
  const units: HistoryMessage[][] = [];
  let reply: HistoryMessage[] | null = null;
  for (const m of messages) {
    if (m.role === "user" || m.role === "system") {
      units.push([m]);
      reply = null;
    } else if (m.role === "assistant") {
      if (!reply) {
        reply = [];
        units.push(reply);
      }
      reply.push(m);
    } else if (m.role === "tool" && reply) {
      reply.push(m);
    }
  }
  return units;
}

/** Characters on one line of a full-width bubble (42rem), for the estimate only. */
const LINE_CHARS = 80;

/**
 * About how many text lines a unit takes on screen (for `Transcript.replay`, which builds only
 * the newest screens at once): its text's lines, wrapped, plus the bubble's padding and a row for
 * the Thinking strip or tool chips. No layout is read.
 */
function unitLines(unit: HistoryMessage[]): number {
  let lines = 2;
  for (const m of unit) {
    // A tool result sits folded in its chip; a summary is one folded line.
    if (m.role === "tool") continue;
    if (m.role === "system") {
      lines += 1;
      continue;
    }
    if (m.reasoning || m.toolCalls?.length) lines += 1.5;
    // A row of thumbnails (12rem) or chips.
    if (m.attachments?.length) lines += 8;
    for (const line of (m.content ?? "").split("\n"))
      lines += Math.max(1, Math.ceil(line.length / LINE_CHARS));
  }
  return lines;
}

/** The newest reply built by a replay (a waiting approval's card belongs in it). */
let lastReplayed: AssistantBubble | null = null;

function replayMessages(messages: HistoryMessage[]): void {
  let bubble: AssistantBubble | null = null;
  let text = "";
  for (const m of messages) {
    if (m.role === "user") {
      transcript.addUser(m.content ?? "", { files: filesView(filesOf(m)) });
      bubble = null;
      lastReplayed = null;
    } else if (m.role === "system") {
      if (m.content) transcript.addSummary(m.content);
      bubble = null;
    } else if (m.role === "assistant") {
      if (!bubble) {
        bubble = transcript.addAssistant();
        lastReplayed = bubble;
        text = "";
      }
      // One stored assistant message per model step: keep their reasoning apart as when streamed.
      if (m.reasoning) bubble.appendReasoning(bubble.hasReasoning ? `\n\n${m.reasoning}` : m.reasoning);
      for (const call of m.toolCalls ?? [])
        bubble.upsertTool({ key: call.id, name: call.name, arguments: call.arguments });
      if (m.content) {
        text = text ? `${text}\n\n${m.content}` : m.content;
        bubble.setText(text);
      }
      bubble.flush();
      if (m.interrupted) bubble.addNote("This reply was cut short by an error.", "error");
    } else if (m.role === "tool" && bubble && m.toolCallId) {
      const decided = m.decision?.decision;
      if (decided === "approve" || decided === "reject" || decided === "edit") bubble.addDecision(decided);
      bubble.setToolResult(m.toolCallId, m.result, m.isError === true);
    }
  }
}

/** `/history`: stored messages, then those of a turn waiting for an approval (named in `pending`). */
interface HistoryReply {
  messages?: HistoryMessage[];
  pending?: { threadId: string }[];
}

function fetchHistory(id: string, quiet = false): Promise<HistoryReply> {
  return api.get<HistoryReply>("/history", { conversationId: id }, quiet);
}

/** Starts a read before it is known to be needed; unused or failed, it must not surface as unhandled. */
function early<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}

async function openConversation(id: string, prefetched?: Promise<HistoryReply>): Promise<void> {
  const shown = await switching(showConversation(id, prefetched));
  // Another conversation was opened meanwhile.
  if (!shown) return;
  const { waiting, lastStored } = shown;
  // The waiting turn's message and tool call were replayed above; its card goes in that reply.
  const pendingThread = waiting ?? storage.get(`pending:${id}`);
  if (pendingThread && id === current) {
    const last = lastReplayed ?? transcript.addAssistant();
    await showApproval(last, pendingThread, new TurnAccumulator());
    if (last !== lastReplayed && !last.root.querySelector(".approval")) last.root.remove();
    transcript.settle();
  }
  const streaming = streamingTurn(id);
  if (streaming && id === current && !turn) {
    // The page was left while a reply streamed. Once the turn is stored (the history ends with its
    // reply) there is nothing to follow; before, the history holds neither message, so the user's
    // is shown from here and the run is followed from its first event (Last-Event-ID: 0).
    if (lastStored?.role === "assistant") storage.set(`streaming:${id}`, null);
    else if (lastStored?.role === "user") await reattach(id, streaming.threadId, undefined);
    else await reattach(id, streaming.threadId, streaming);
  }
}

/** Opens a conversation up to its history on screen; null when another was opened meanwhile. */
async function showConversation(
  id: string,
  prefetched?: Promise<HistoryReply>,
): Promise<{ waiting?: string; lastStored?: HistoryMessage } | null> {
  current = id;
  storage.set("last", id);
  composer.switchTo(id);
  sidebar.setCurrent(id);
  transcript.clear();
  lastReplayed = null;
  let waiting: string | undefined;
  let lastStored: HistoryMessage | undefined;
  try {
    const r = await (prefetched ?? fetchHistory(id));
    if (id !== current) return null;
    performance.mark("agentsvc:history-loaded");
    transcript.replay(replayUnits(r.messages ?? []), (units) => replayMessages(units.flat()), unitLines);
    performance.mark("agentsvc:history-built");
    waiting = r.pending?.[0]?.threadId;
    lastStored = r.messages?.at(-1);
  } catch (err) {
    report(err);
  }
  transcript.settle();
  transcript.scrollToEnd();
  // For benchmarks and diagnostics: when the stored conversation is on screen (navigation-relative).
  performance.mark("agentsvc:history-replayed");
  return { waiting, lastStored };
}

function streamingTurn(id: string): { threadId: string; input: string; files: MessageFile[] } | undefined {
  try {
    const v = JSON.parse(storage.get(`streaming:${id}`) ?? "null") as {
      threadId?: unknown;
      input?: unknown;
      files?: unknown;
    };
    if (typeof v?.threadId !== "string" || typeof v.input !== "string") return undefined;
    // Read back as /history's refs are (the same checks), never trusted as they are.
    const files = filesOf({ role: "user", attachments: Array.isArray(v.files) ? v.files.map(asRef) : [] });
    return { threadId: v.threadId, input: v.input, files };
  } catch {
    return undefined;
  }
}

/** A stored file of the streaming record as a /history ref (`id` was `blob`). */
function asRef(f: unknown): NonNullable<HistoryMessage["attachments"]>[number] {
  const o = (typeof f === "object" && f !== null ? f : {}) as Record<string, unknown>;
  return {
    ...(typeof o.id === "string" ? { blob: o.id } : {}),
    ...(typeof o.name === "string" ? { name: o.name } : {}),
    ...(typeof o.contentType === "string" ? { contentType: o.contentType } : {}),
    ...(typeof o.size === "number" ? { size: o.size } : {}),
  };
}

async function reattach(
  conversation: string,
  threadId: string,
  sent: { input: string; files: MessageFile[] } | undefined,
): Promise<void> {
  const controller = new AbortController();
  let res: Response;
  try {
    res = await api.stream("/stream", { threadId }, controller.signal, { "Last-Event-ID": "0" });
  } catch {
    // The run is gone (this instance restarted, or it ended long ago): the history is all there is.
    storage.set(`streaming:${conversation}`, null);
    return;
  }
  if (conversation !== current || turn) {
    controller.abort();
    return;
  }
  if (sent !== undefined) transcript.addUser(sent.input, { files: filesView(sent.files) });
  const bubble = transcript.addAssistant();
  const t: Turn = { threadId, conversation, controller, bubble, acc: new TurnAccumulator(), stopped: false };
  turn = t;
  setBusy(true);
  transcript.scrollToEnd();
  status("Assistant is replying…");
  await runStream(t, res);
}

function newConversation(): Promise<void> {
  return switching(startConversation());
}

async function startConversation(): Promise<void> {
  // Typed while the id is minted: stays in the box, as the new conversation's draft.
  composer.hold();
  try {
    // The open conversation is still empty: it is the new one (New pressed again keeps no empty rows).
    const open = sidebar.conversations.find((c) => c.conversationId === current);
    const empty = open?.messageCount === 0 && !turn && !storage.get(`streaming:${current}`);
    const id = empty
      ? current
      : (await api.post<{ conversationId: string }>("/conversations/create", {})).conversationId;
    await refreshConversations();
    await openConversation(id);
    // On a phone the list is a drawer over the transcript: close it, so focus is not left under it.
    sidebar.setOverlay(false);
    composer.input.focus();
    status("New conversation.");
  } catch (err) {
    report(err);
  } finally {
    composer.release();
  }
}

async function loadPreferences(): Promise<void> {
  const local = storage.get("theme");
  // Signed in, the server copy wins; otherwise it only fills in when nothing is stored locally.
  if (!signedIn && isThemeMode(local)) return;
  try {
    const r = await api.get<{ preferences: Record<string, unknown> }>("/preferences");
    const server = r.preferences?.theme;
    if (isThemeMode(server)) {
      theme = server;
      storage.set("theme", server);
      applyTheme(theme, themeBtn);
    }
  } catch {
    // Keep the local choice.
  }
}

async function toggleTheme(): Promise<void> {
  theme = nextTheme(theme);
  applyTheme(theme, themeBtn);
  storage.set("theme", theme);
  try {
    await api.post("/preferences/set", { key: "theme", value: theme });
  } catch {
    // The local copy keeps the choice until the server can be reached.
  }
}

/**
 * Start-up is a conversation switch like any other: a message sent before the page knows which
 * conversation it opens waits for it (and goes into the last-opened one, not a newly created one).
 * The switch lasts until the conversation's own switch (`openConversation`) has begun.
 */
async function boot(): Promise<void> {
  const said = statusLine.textContent;
  const started = await switching(startUp());
  if (!started) return;
  await started.opened;
  await started.preferences;
  // Clears what start-up left (a sign-in wait), not what a message sent meanwhile reports.
  if (statusLine.textContent === said) status("");
}

/** Start-up up to opening the conversation; null when it stops (no service, sign-in needed). */
async function startUp(): Promise<{ opened: Promise<void>; preferences: Promise<void> } | null> {
  keyBtn.hidden = !storage.get("apiKey");
  // The conversation list and the last-opened conversation's history go out with /info rather than
  // after it (no round trip in between). They are quiet: a 401 here opens no prompt, /info's does.
  // The history is used only if that conversation is still in the list.
  // Usually they already went out from <head> (early.ts) with the same key and conversation.
  const last = storage.get("last");
  const sent = takeEarlyReads(storage.get("apiKey"), last);
  const prefetched = last
    ? early(sent?.history ? api.adopt<HistoryReply>(sent.history, true) : fetchHistory(last, true))
    : undefined;
  const listed = early(
    sent
      ? api.adopt<ConversationList>(sent.conversations, true)
      : api.get<ConversationList>("/conversations", {}, true),
  );
  const infoRead = early(sent ? api.adopt<Info>(sent.info) : api.get<Info>("/info"));
  // The draft shows at once, even while a key or sign-in prompt is open (after the reads go out:
  // sizing the composer is the page's first layout).
  composer.switchTo(last ?? current);
  try {
    info = await infoRead;
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 401)) {
      status(err instanceof ApiError ? plainMessage(err.code, err.status) : plainMessage("network"));
    }
    // Started without the service: load the page once it answers.
    if (err instanceof ApiError && err.code === "network") reloadWhenReachable();
    transcript.settle();
    return null;
  }
  const model = byId("model");
  model.textContent = info.modelName ?? "";
  // The badge may be cut with an ellipsis; the full name stays reachable.
  model.title = info.modelName ?? "";
  compactBtn.hidden = info.capabilities?.compact !== true;
  if (info.capabilities?.apiKey) keyBtn.hidden = false;
  if (info.capabilities?.signIn || config.signIn) {
    try {
      const me = await api.get<{
        signInRequired: boolean;
        user: { username: string; displayName?: string } | null;
      }>("/auth/me");
      signedIn = me.user !== null;
      auth.showUser(me.user ? me.user.displayName || me.user.username : null);
      if (me.signInRequired && !me.user) {
        auth.promptSignIn();
        return null;
      }
    } catch (err) {
      report(err);
      return null;
    }
  }
  if (!info.capabilities?.signIn && !config.signIn) showSharedNotice();
  // The theme preference does not hold up the conversation: it applies whenever it arrives.
  const preferences = loadPreferences();
  const items = await refreshConversations(listed);
  // A conversation whose first reply was still streaming is not listed yet: it is kept all the same.
  const kept = last && (items.some((c) => c.conversationId === last) || storage.get(`streaming:${last}`));
  const id = kept ? last : (items[0]?.conversationId ?? "default");
  // Called, not awaited: its own switch is registered before this one ends.
  return { opened: openConversation(id, id === last ? prefetched : undefined), preferences };
}

function reloadWhenReachable(): void {
  const probe = async () => {
    try {
      await api.get<Info>("/info", {}, true);
      location.reload();
    } catch {
      setTimeout(() => void probe(), 3000);
    }
  };
  setTimeout(() => void probe(), 3000);
}

/** Without accounts every visitor shares one workspace: said once, on the first visit. */
function showSharedNotice(): void {
  if (storage.get("sharedNoticeSeen")) return;
  storage.set("sharedNoticeSeen", "1");
  const notice = byId("shared-notice");
  notice.hidden = false;
  byId("shared-notice-ok").addEventListener("click", () => {
    notice.hidden = true;
    composer.input.focus();
  });
}

// Starter prompts (from the entry) send themselves; they sit in the empty state only.
for (const starter of document.querySelectorAll<HTMLButtonElement>("#welcome .starter")) {
  starter.addEventListener("click", () => {
    if (turn) return;
    composer.set(starter.textContent ?? "");
    void submit();
  });
}

stopBtn.addEventListener("click", () => void stop());
wireLightbox();
if (config.icon?.kind === "emoji" && config.fallbackIcon && !canDraw(config.icon.value))
  useFallbackIcon(config.fallbackIcon);
new Menu(byId<HTMLButtonElement>("menu-btn"), byId("menu-list"));
clearBtn.addEventListener("click", () => void clearConversation());
compactBtn.addEventListener("click", () => void compact());
newBtn.addEventListener("click", () => void newConversation());
themeBtn.addEventListener("click", () => void toggleTheme());
keyBtn.addEventListener("click", () => auth.promptKey(""));
void boot();
