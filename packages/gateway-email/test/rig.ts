// A real session around the email gateway (ContractRig) whose log lines are kept, over one
// mailbox of the shared test Dovecot.
import { Writable } from "node:stream";
import { ContractRig } from "@agentsvc/session-core/testing";
import type { ParsedMail } from "mailparser";
import { pino } from "pino";
import { createGateway, type EmailGatewayOptions } from "../src/index.js";
import type { Dovecot } from "@agentsvc/testkit";
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
