// A real session around the email gateway (ContractRig) whose log lines are kept, over one
// mailbox of the shared test Dovecot.
import { Writable } from "node:stream";
import { ContractRig } from "@agentsvc/session-core/testing";
import { type Dovecot, startDovecot } from "@agentsvc/testkit";
import type { ParsedMail } from "mailparser";
import { pino } from "pino";
import { afterAll, afterEach } from "vitest";
import { createGateway, type EmailGateway, type EmailGatewayOptions } from "../src/index.js";
import { emailHarness, type Mailbox } from "./harness.js";

export class LoggedRig extends ContractRig {
  readonly lines: { level: number; msg: string; [k: string]: unknown }[] = [];
  override readonly logger = pino(
    { level: "info" },
    new Writable({
      write: (chunk, _enc, done) => {
        for (const line of String(chunk).split("\n")) if (line) this.lines.push(JSON.parse(line));
        done();
      },
    }),
  );
}

export async function emailRig(
  dovecot: Dovecot,
  extra: Partial<EmailGatewayOptions> | ((box: Mailbox) => Partial<EmailGatewayOptions>) = {},
  /** Runs on the mailbox before the gateway starts. */
  prepare?: (box: Mailbox) => Promise<void>,
) {
  const harness = await emailHarness(dovecot);
  const box: Mailbox = harness.box;
  await prepare?.(box);
  const options = () => box.options(typeof extra === "function" ? extra(box) : extra);
  const rig = new LoggedRig({ ...harness, gateway: () => createGateway({ ...options(), name: "email" }) });
  await rig.start().catch(async (err: unknown) => {
    await box.close();
    throw err;
  });
  return {
    rig,
    box,
    close: async () => {
      await rig.stop();
      await box.close();
    },
  };
}

export const header = (m: ParsedMail | undefined, name: string) => {
  const v = m?.headers.get(name);
  return typeof v === "string" ? v : v === undefined ? undefined : JSON.stringify(v);
};

export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 8_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * One Dovecot per test file, started on first use and closed after the file, and what each test
 * started on it (`onCleanup`), stopped after the test. Call at the file's top level.
 */
export function useDovecot() {
  let dovecot: Dovecot | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });
  afterAll(async () => {
    await dovecot?.close();
  });
  const started = async () => {
    dovecot ??= await startDovecot();
    return dovecot;
  };
  return {
    started,
    onCleanup(stop: () => Promise<void>) {
      cleanup = stop;
    },
    /** An email rig on the shared Dovecot, stopped after the test. */
    async rig(...args: Parameters<typeof emailRig> extends [unknown, ...infer R] ? R : never) {
      const rigged = await emailRig(await started(), ...args);
      cleanup = rigged.close;
      return rigged;
    },
  };
}

/**
 * A conversation started by ann and answered once (the session idle after it): the gateway, ready
 * for a test to send into that conversation (`<id@example.test>`).
 */
export async function answeredConversation(
  { rig, box }: Awaited<ReturnType<typeof emailRig>>,
  mail: { id: string; subject: string; text: string },
): Promise<EmailGateway> {
  await box.append({
    messageId: `<${mail.id}@example.test>`,
    from: "ann@example.test",
    subject: mail.subject,
    text: mail.text,
  });
  await until(() => box.sink.mails.length === 1, "the first reply");
  await rig.session.idle(10_000);
  return rig.gateway as EmailGateway;
}
