// Shared set-up of the Discord tests: a harness, a contract rig around it, and the checks.
import type { GatewayContext } from "@agentsvc/adapter-kit";
import type { SessionStore } from "@agentsvc/session-core";
import { ContractRig } from "@agentsvc/session-core/testing";
import { eventually, type LogLine } from "@agentsvc/testkit";
import { expect } from "vitest";
import { SESSION_KEY, type StoredSession } from "../src/connection.js";
import { CHANNELS, type DiscordHarness, discordHarness } from "./harness.js";

export interface Rigged {
  h: DiscordHarness;
  rig: ContractRig;
}

export async function startRig(
  overrides?: Parameters<typeof discordHarness>[0],
  fakeOptions?: Parameters<typeof discordHarness>[1],
  waitReady = true,
): Promise<Rigged> {
  const h = await discordHarness(overrides, fakeOptions);
  const rig = new ContractRig(h);
  await rig.start();
  if (waitReady) await sessionStored(h, rig.store);
  return { h, rig };
}

/**
 * The gateway has read READY and stored the session it names. The fake's session exists once it
 * sent READY, which the gateway may not have read yet on a loaded machine: a test that stops then
 * leaves nothing stored to resume, and a restart identifies afresh.
 */
export async function sessionStored(h: DiscordHarness, store: Pick<SessionStore, "gatewayState">) {
  await eventually(async () => {
    const id = h.fake.sessions.current?.id;
    return (
      id !== undefined && (await store.gatewayState.get<StoredSession>("discord", SESSION_KEY))?.id === id
    );
  }, "READY read and its session stored");
}

/**
 * Clocks a loaded machine cannot trip (Hello's interval 2 s, the silence watchdog 60 s), for tests of
 * what a command or a close causes rather than of the timers: with the scaled clocks (a 356 ms
 * silence limit) a stalled event loop adds reconnects of its own.
 */
export function startCalmRig(overrides?: Parameters<typeof discordHarness>[0]): Promise<Rigged> {
  return startRig({ watchdogMs: 60_000, ...overrides }, { heartbeatIntervalMs: 2_000 });
}

export async function stopRig(r: Rigged | undefined): Promise<void> {
  await r?.rig.stop();
  await r?.h.close?.();
}

/** A user writes in the first channel (no wait for the acknowledgement). */
export function say({ h }: Rigged, text: string): void {
  h.fake.sessions.userSays({ channelId: CHANNELS[0], authorId: h.userId("user-1"), content: text });
}

/** Every text got exactly one user turn and exactly one reply. */
export async function expectOnceEach({ h, rig }: Rigged, texts: string[], boundMs = 10_000): Promise<void> {
  await eventually(
    () => texts.every((t) => h.fake.rest.botMessages.some((m) => m.content.includes(t))),
    `a reply to each of ${texts.join(", ")}`,
    boundMs,
  );
  await rig.session.idle(boundMs);
  const turns = await rig.userMessages(CHANNELS[0]);
  for (const t of texts) {
    expect(
      h.fake.rest.botMessages.filter((m) => m.content.includes(t)),
      `replies to ${t}`,
    ).toHaveLength(1);
    expect(
      turns.filter((m) => m.includes(t)),
      `turns of ${t}`,
    ).toHaveLength(1);
  }
}

/** The connection after `index` (1-based ids), once it exists. */
export async function nextConnection({ h }: Rigged, after: number) {
  await eventually(() => h.fake.connections.length > after, `connection #${after + 1}`);
  return h.fake.connections[after] as (typeof h.fake.connections)[number];
}

/** The approval card a user's "please use delete_file <note>" in the first channel brings up, and its request id. */
export async function pendingCard({ h, rig }: Rigged, note: string) {
  await h.inject?.({
    id: note,
    thread: CHANNELS[0],
    text: `please use delete_file ${note}`,
    author: "user-1",
  });
  await eventually(
    () => rig.session.snapshot("discord", CHANNELS[0]).pendingRequestId !== undefined,
    "the request",
  );
  const requestId = rig.session.snapshot("discord", CHANNELS[0]).pendingRequestId as string;
  await eventually(() => h.fake.rest.botMessages.some((m) => m.components?.length), "the card");
  const card = h.fake.rest.botMessages.find(
    (m) => m.components?.length,
  ) as (typeof h.fake.rest.botMessages)[number];
  return { requestId, card };
}

/** A task the gateway handed its scheduler: `every` with its period, `schedule` with its first delay. */
export interface Scheduled {
  kind: "every" | "schedule";
  name: string;
  ms: number;
}

/** Every gateway `h` builds from now on is started with `change(ctx)` instead of the session's context. */
export function changeContext(h: DiscordHarness, change: (ctx: GatewayContext) => GatewayContext): void {
  const build = h.gateway;
  h.gateway = async () => {
    const gw = await build();
    const start = gw.start.bind(gw);
    gw.start = (ctx: GatewayContext) => start(change(ctx));
    return gw;
  };
}

/**
 * Every gateway `h` builds from now on hands its tasks to the session's scheduler through a recorder:
 * what it scheduled, and with which delay, lands in the returned list.
 */
export function recordScheduling(h: DiscordHarness): Scheduled[] {
  const seen: Scheduled[] = [];
  changeContext(h, (ctx) => ({
    ...ctx,
    scheduler: {
      every: (name, ms, task) => {
        seen.push({ kind: "every", name, ms });
        ctx.scheduler.every(name, ms, task);
      },
      schedule: (name, ms, task) => {
        seen.push({ kind: "schedule", name, ms });
        ctx.scheduler.schedule(name, ms, task);
      },
      cancel: (name) => ctx.scheduler.cancel(name),
      list: () => ctx.scheduler.list(),
    },
  }));
  return seen;
}

/** The first log line with this message (and these fields), once it is logged. */
export async function logged(x: Rigged, msg: string, fields: Partial<LogLine> = {}): Promise<LogLine> {
  const match = (l: LogLine) =>
    l.msg === msg && Object.entries(fields).every(([k, v]) => (l as Record<string, unknown>)[k] === v);
  await eventually(() => x.h.logs.some(match), `the log line "${msg}" with ${JSON.stringify(fields)}`);
  return x.h.logs.find(match) as LogLine;
}

/** The session the connection stored for a resume after a restart. */
export const storedSession = (x: Rigged) =>
  x.rig.store.gatewayState.get<StoredSession>("discord", SESSION_KEY);
