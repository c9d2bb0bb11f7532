// One gateway against the Telegram fake over HTTP, with a context that records what it hands the
// session: the set-up of the tests that call the gateway as the session does.
import type { GatewayContext } from "@agentsvc/adapter-kit";
import { eventually, type TelegramApiCall, TelegramFake } from "@agentsvc/testkit";
import { createGateway, type TelegramGateway, type TelegramGatewayOptions } from "../src/index.js";
import { type RecordingContext, recordingContext } from "./recording-context.js";

export interface TelegramRig {
  fake: TelegramFake;
  gateway: TelegramGateway;
  rec: RecordingContext;
  /** Starts the gateway (with `rec.context` unless given another) and waits for its first getUpdates. */
  start(context?: GatewayContext): Promise<void>;
  /** The Bot API calls the fake received for `method`, in order. */
  calls(method: string): TelegramApiCall[];
  stop(): Promise<void>;
}

/** A rig whose gateway is built but not started (for tests that set faults up first). */
export async function createRig(overrides: Partial<TelegramGatewayOptions> = {}): Promise<TelegramRig> {
  const fake = await TelegramFake.start();
  const rec = recordingContext({ TELEGRAM_BOT_TOKEN: fake.token });
  const gateway = createGateway({
    name: "telegram",
    botTokenEnvVar: "TELEGRAM_BOT_TOKEN",
    apiBaseUrl: fake.url,
    pollTimeoutSeconds: 1,
    ...overrides,
  }) as TelegramGateway;
  return {
    fake,
    gateway,
    rec,
    start: async (context = rec.context) => {
      await gateway.start(context);
      await eventually(() => fake.calls.some((c) => c.method === "getUpdates"), "the first poll");
    },
    calls: (method) => fake.calls.filter((c) => c.method === method),
    stop: async () => {
      await gateway.stop();
      rec.stop();
      await fake.close();
    },
  };
}

/** A rig whose gateway is started and polling. */
export async function startRig(overrides: Partial<TelegramGatewayOptions> = {}): Promise<TelegramRig> {
  const rig = await createRig(overrides);
  await rig.start();
  return rig;
}
