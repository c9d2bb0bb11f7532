// A pulling adapter for the contract's cursor case: it reads a platform mailbox from a position it
// saves in its durable state (as e-mail keeps an IMAP UID). `movesPastFailures` is the defect the
// case must catch: the position moves past a message whose recording failed, so it is never read again.
import type { Gateway, GatewayContext } from "../src/index.js";
import { type GatewayHarness, MockGateway } from "../src/testing/index.js";

interface Mail {
  uid: number;
  id: string;
  thread: string;
  text: string;
  author: string;
}

class CursorGateway extends MockGateway {
  #timer: NodeJS.Timeout | undefined;
  #polling: Promise<void> | undefined;
  position = 0;

  constructor(
    private readonly mailbox: Mail[],
    private readonly movesPastFailures: boolean,
  ) {
    super({ name: "mock" });
  }

  override async start(context: GatewayContext): Promise<void> {
    await super.start(context);
    this.position = (await context.state.get<number>("position")) ?? 0;
    this.#timer = setInterval(() => {
      this.#polling ??= this.#poll(context).finally(() => {
        this.#polling = undefined;
      });
    }, 20);
  }

  override async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#polling;
    await super.stop();
  }

  async #poll(context: GatewayContext): Promise<void> {
    for (const mail of this.mailbox.filter((m) => m.uid > this.position)) {
      try {
        await context.deliver({
          dedupKey: mail.id,
          thread: mail.thread,
          text: mail.text,
          author: { id: mail.author },
        });
      } catch {
        if (!this.movesPastFailures) return; // read again from here on the next poll
      }
      this.position = mail.uid;
      await context.state.set("position", mail.uid);
    }
  }
}

/** A harness over one mailbox shared by every adapter instance it builds (restarts). */
export function cursorHarness(options: { movesPastFailures: boolean }): GatewayHarness {
  const mailbox: Mail[] = [];
  const instances: CursorGateway[] = [];
  return {
    cursor: true,
    gateway: () => {
      const g = new CursorGateway(mailbox, options.movesPastFailures);
      instances.push(g);
      return g as Gateway;
    },
    inject: async (m) => {
      const uid = mailbox.length + 1;
      mailbox.push({ uid, ...m });
      // The platform's view of "accepted": the adapter's saved position reached the mail.
      const deadline = Date.now() + 2_000;
      while ((instances.at(-1)?.position ?? 0) < uid) {
        if (Date.now() > deadline) throw new Error(`mail ${m.id} was not read`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    sent: async () => instances.flatMap((g) => g.sent),
  };
}
