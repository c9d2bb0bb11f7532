// The email gateway step by step: started with a hand-built session context (what `deliver` got,
// the gateway's own state, the requests it may tag, its log lines) on a mailbox of the shared test
// Dovecot, its poll task run by hand (one round per call, the delay it asks for read back), its
// replies caught by the mailbox's SMTP sink.
import { Writable } from "node:stream";
import type {
  GatewayContext,
  Inbound,
  InteractionView,
  SelfSchedulingTask,
  SendOptions,
} from "@agentsvc/adapter-kit";
import type { ParsedMail } from "mailparser";
import { pino } from "pino";
import { createGateway, type EmailGateway, type EmailGatewayOptions } from "../src/index.js";
import { mailbox, type RawMail } from "./harness.js";
import { useDovecot } from "./rig.js";

/**
 * Call at the file's top level: `started()` gives a gateway on a new mailbox of the file's Dovecot,
 * stopped (and the mailbox closed) after the test.
 */
export function useSteppedGateway() {
  const dovecot = useDovecot();

  async function started(extra: Partial<EmailGatewayOptions> = {}, env: Record<string, string> = {}) {
    const box = await mailbox(await dovecot.started());
    let gw: EmailGateway | undefined;
    dovecot.onCleanup(async () => {
      await gw?.stop();
      await box.close();
    });
    const lines: { level: number; msg: string; [k: string]: unknown }[] = [];
    const logger = pino(
      { level: "info" },
      new Writable({
        write: (chunk, _enc, done) => {
          for (const line of String(chunk).split("\n")) if (line) lines.push(JSON.parse(line));
          done();
        },
      }),
    );
    const state = new Map<string, unknown>();
    const delivered: Inbound[] = [];
    const rejected: { envVar: string; detail: string }[] = [];
    const interactions = new Map<string, InteractionView>();
    const tasks = new Map<string, SelfSchedulingTask>();
    const counts = { heard: 0, reconnected: 0, succeeded: 0 };
    const ctx: GatewayContext = {
      deliver: async (inbound) => {
        delivered.push(inbound);
        return { accepted: true, id: delivered.length };
      },
      decide: async () => {
        throw new Error("the email gateway decides through deliver");
      },
      interaction: async (id) => interactions.get(id),
      state: {
        get: async <T>(key: string) => state.get(key) as T | undefined,
        set: async (key, value) => {
          state.set(key, structuredClone(value));
        },
        delete: async (key) => {
          state.delete(key);
        },
      },
      outbox: async () => [],
      claimOnce: async () => ({ claimed: true }),
      credentialsRejected: (envVar, detail) => {
        rejected.push({ envVar, detail });
      },
      reconnected: () => {
        counts.reconnected += 1;
      },
      heard: () => {
        counts.heard += 1;
      },
      platformCallSucceeded: () => {
        counts.succeeded += 1;
      },
      logger,
      scheduler: {
        every: () => undefined,
        schedule: (name, _delay, task) => {
          tasks.set(name, task);
        },
        cancel: (name) => tasks.delete(name),
        list: () => [],
      },
      env: {},
    };
    const options = box.options(extra);
    gw = createGateway({ ...options, env: { ...options.env, ...env }, name: "email" }) as EmailGateway;
    await gw.start(ctx);
    const poll = tasks.get("poll");
    if (!poll) throw new Error("start scheduled no poll");
    /** One poll round; the delay the task asks for (null: stop polling). */
    const round = () => poll(new AbortController().signal);
    /**
     * One round whose task is aborted while a mail is being recorded (the abort closes the IMAP
     * connection): the poll fails there. Needs an unread mail in the mailbox.
     */
    const abortedRound = () => {
      const abort = new AbortController();
      const deliver = ctx.deliver;
      ctx.deliver = async (inbound) => {
        ctx.deliver = deliver;
        abort.abort();
        return deliver(inbound);
      };
      return poll(abort.signal);
    };
    return {
      box,
      gw,
      ctx,
      lines,
      state,
      delivered,
      rejected,
      interactions,
      tasks,
      counts,
      round,
      abortedRound,
    };
  }

  return { dovecot, started };
}

/** A first attempt's send options. */
export const opts = (key: string, more: Partial<SendOptions> = {}): SendOptions => ({
  idempotencyKey: key,
  attempt: 1,
  ...more,
});

/** An open approval request of this gateway in `thread`. */
export const request = (
  id: string,
  thread: string,
  more: Partial<InteractionView> = {},
): InteractionView => ({
  requestId: id,
  threadId: "run-thread",
  gateway: "email",
  thread,
  allowedDecisions: ["approve", "reject"],
  toolName: "delete_file",
  arguments: {},
  prompt: "May I delete the file?",
  createdAt: 0,
  status: "open",
  ...more,
});

/** A mail from ann@example.test with Message-ID `<id@example.test>`. */
export const fromAnn = (id: string, subject: string, text: string, more: Partial<RawMail> = {}): RawMail => ({
  messageId: `<${id}@example.test>`,
  from: "ann@example.test",
  subject,
  text,
  ...more,
});

/** A sent mail's To, as text ("" when none). */
export const recipient = (m: ParsedMail | undefined) => (m?.to && "text" in m.to ? m.to.text : "");
