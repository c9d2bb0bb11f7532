// A chat adapter's platform calls through adapter-kit's keep-alive transport against the same calls
// through global fetch, in alternated rounds of one run: the client's CPU a call (process.cpuUsage:
// the Bot API fake runs in a process of its own, so only the caller's side counts).
//
// - JSON calls: PlatformClient's `sendMessage` POSTs one after another (as a reply's pieces and edits
//   go), by default (the transport) and with `fetch: globalThis.fetch` (the path every call took
//   before: fetch, AbortSignal.timeout, Response.text()).
// - A streamed reply through the Telegram adapter (private chat: DRAFTS sendMessageDraft updates, then
//   the message by sendMessage), its transport's `request` swapped for one that calls fetch as
//   PlatformClient did, for the fetch side.
import {
  type DraftIds,
  FETCH_DEFAULT_HEADERS,
  type HttpAnswer,
  httpTransport,
  PlatformClient,
} from "@agentsvc/adapter-kit";
import { createGateway, type TelegramGateway } from "@agentsvc/gateway-telegram";
import { type GatewayContext, Scheduler } from "@agentsvc/session-core";
import { pino } from "pino";
import { startChildServer } from "./child-server.ts";
import { machineLoad } from "./proc.ts";
import { fmt, type Row } from "./stats.ts";

const CALLS = Number(process.env.BENCH_ADAPTER_CALLS ?? 2_000);
const REPLIES = Number(process.env.BENCH_ADAPTER_REPLIES ?? 200);
const ROUNDS = Number(process.env.BENCH_ADAPTER_ROUNDS ?? 5);
const DRAFTS = 5;

/** CPU ms of this process (user + system) while `run` runs. */
async function cpuMs(run: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** The transport's `request` as PlatformClient's fetch path made it: fetch, a timeout signal, Response. */
const request = httpTransport.request.bind(httpTransport);
const throughFetch: typeof httpTransport.request = async (url, o) => {
  const timeout = AbortSignal.timeout(o.timeoutMs);
  // fetch adds its defaults itself: only the caller's own headers, as PlatformClient gave them.
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(o.headers)) if (FETCH_DEFAULT_HEADERS[k] !== v) headers[k] = v;
  const res = await fetch(url, {
    method: o.method,
    headers,
    ...(o.body === undefined ? {} : { body: o.body as string }), // PlatformClient sends strings
    signal: o.signal ? AbortSignal.any([o.signal, timeout]) : timeout,
  });
  // The Telegram client reads only what fetch's Response has too (PlatformAnswer).
  return res as unknown as HttpAnswer;
};

/** What the adapter needs of a session to start and send (nothing arrives: no user writes). */
function adapterContext(scheduler: Scheduler, env: Record<string, string>): GatewayContext {
  const logger = pino({ level: "silent" });
  const state = new Map<string, unknown>();
  return {
    deliver: async () => ({ accepted: true, id: 0 }),
    decide: async (requestId, input) => ({ ok: true, requestId, decision: input.decision }),
    interaction: async () => undefined,
    state: {
      get: async <T>(key: string) => state.get(key) as T | undefined,
      set: async (key, value) => void state.set(key, value),
      delete: async (key) => void state.delete(key),
    },
    outbox: async () => [],
    claimOnce: async () => ({ claimed: true }),
    credentialsRejected: () => {},
    logger,
    scheduler: scheduler.forGateway("telegram", logger),
    env,
  };
}

interface Side {
  name: string;
  jsonCall: (i: number) => Promise<unknown>;
  useFetch: boolean;
}

export async function benchAdapterSend(): Promise<Row[]> {
  const api = await startChildServer(new URL("./servers/telegram-bot-api.ts", import.meta.url).pathname);
  const [base, token] = api.url.split(" ") as [string, string];
  const sendUrl = `${base}/bot${token}/sendMessage`;
  const client = (fetchToo: boolean) =>
    new PlatformClient({
      platform: "telegram",
      timeoutMs: 10_000,
      ...(fetchToo ? { fetch: globalThis.fetch } : {}),
    });
  const viaTransport = client(false);
  const viaFetch = client(true);
  // A chat a call: the fake refuses an 11th message within 10 s in one chat, as Telegram would.
  let jsonChat = 1_000_000;
  const body = (i: number) => ({ chat_id: jsonChat++, text: `reply piece ${i}`, parse_mode: "HTML" });
  const sides: Side[] = [
    {
      name: "transport",
      jsonCall: (i) => viaTransport.json("sendMessage", sendUrl, { body: body(i) }),
      useFetch: false,
    },
    {
      name: "fetch",
      jsonCall: (i) => viaFetch.json("sendMessage", sendUrl, { body: body(i) }),
      useFetch: true,
    },
  ];
  const gateway = createGateway({
    name: "telegram",
    botTokenEnvVar: "BENCH_TG_TOKEN",
    apiBaseUrl: base,
    pollTimeoutSeconds: 50,
  }) as TelegramGateway;
  const scheduler = new Scheduler(pino({ level: "silent" }));
  await gateway.start(adapterContext(scheduler, { BENCH_TG_TOKEN: token }));
  let chat = 100_000;
  /** One streamed reply in a new private chat: DRAFTS drafts, then the message. */
  const reply = async () => {
    const thread = String(chat++);
    const stream = gateway.stream?.(thread, { meta: { chatType: "private" } });
    let ids: DraftIds | undefined;
    let text = "";
    for (let d = 0; d < DRAFTS; d++) {
      text += ` word${d}`;
      ids = (await stream?.update(text)) ?? ids;
    }
    await gateway.finishDraft?.(thread, ids ?? {}, `${text} end`, { idempotencyKey: thread, attempt: 1 });
  };
  const json: Record<string, number[]> = { transport: [], fetch: [] };
  const streamed: Record<string, number[]> = { transport: [], fetch: [] };
  const loads: string[] = [machineLoad()];
  try {
    // Round -1 warms both paths (JIT, one kept-alive socket each, the request swap's deopts) unrecorded.
    for (let round = -1; round < ROUNDS; round++) {
      // Alternated: each side first in every other round.
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      const record = (of: Record<string, number[]>, side: string, ms: number) => {
        if (round >= 0) of[side]?.push(ms);
      };
      for (const side of order) {
        const ms = await cpuMs(async () => {
          for (let i = 0; i < CALLS; i++) await side.jsonCall(i);
        });
        record(json, side.name, ms / CALLS);
        httpTransport.request = side.useFetch ? throughFetch : request;
        const replyMs = await cpuMs(async () => {
          for (let i = 0; i < REPLIES; i++) await reply();
        });
        httpTransport.request = request;
        record(streamed, side.name, replyMs / REPLIES);
      }
      if (round >= 0) loads.push(machineLoad());
    }
  } finally {
    httpTransport.request = request;
    await gateway.stop();
    scheduler.stopAll();
    await api.stop();
  }
  const median = (xs: number[] = []) =>
    [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
  const ratios = (a: number[] = [], b: number[] = []) => a.map((x, i) => fmt(x / (b[i] ?? Number.NaN)));
  const row = (metric: string, of: Record<string, number[]>, digits: number): Row => ({
    metric,
    value: `${fmt(median(of.transport), digits)} CPU ms`,
    baseline: `${fmt(median(of.fetch), digits)} (global fetch)`,
    ratio: `${fmt(median(of.transport) / median(of.fetch))}x`,
    target: `rounds ${ratios(of.transport, of.fetch).join(", ")}; ${loads[0]} -> ${loads.at(-1)}`,
  });
  return [
    row(`JSON sendMessage a call (${CALLS} a round, ${ROUNDS} rounds)`, json, 3),
    row(
      `streamed reply through the Telegram adapter (${DRAFTS} drafts + the message; ${REPLIES} a round)`,
      streamed,
      2,
    ),
  ];
}
