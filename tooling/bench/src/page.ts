// The chat page in Chromium against the real server (demo model), each figure beside a baseline
// measured in the same run: page weight (vs. a page holding only the same CSS), first paint (vs. a
// minimal static page served the same way), replay of a 1,000-message history (vs. the 250 ms
// target), and main-thread time per streamed token after 10 and after 1,000 stored messages (vs. the
// 1 ms target, and the long conversation vs. the short one).
// BENCH_DEBUG=1 prints request and mark timings and main-thread CPU (from a trace) per replay and
// metric splits per stream;
// BENCH_PAGE_ONLY=replay (paint and replay rows) or =stream (the per-token rows) measures only those.
// BENCH_TRACE=1 writes Chromium traces of the last replay (/tmp/trace-replay.json) and of the last
// streamed reply per conversation (/tmp/trace-stream-<history>.json).
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import type { Message } from "@agentsvc/agent-core";
import { loadProject } from "@agentsvc/config-schema";
import { type RunningServer, startServer } from "@agentsvc/server";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import pino from "pino";
import { type Browser, type BrowserContext, chromium } from "playwright-core";
import { fmt, percentile, type Row } from "./stats.ts";
import { LOAD_CPU_CATEGORIES, loadCpu } from "./trace-cpu.ts";
import { sharedUserIdOf } from "@agentsvc/webui";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const HISTORY = 1_000;
const SHORT_HISTORY = 10;
const PAINT_SAMPLES = 15;
const REPLAY_SAMPLES = 7;
const STREAM_SAMPLES = 5;
/** Open workspace (no `users`): every visitor of gateways/chat.yaml is this user. */
const SHARED_USER = sharedUserIdOf({ entryName: "chat" });

// ~240 demo tokens of markdown: paragraphs, a list and code, so the streaming bubble's markdown
// re-render does real work. The same reply streams early and late; only the history differs.
const REPLY = Array.from(
  { length: 6 },
  (_, i) =>
    `Paragraph ${i} explains **one idea** with \`inline code\` and a [link](https://example.com/${i}).\n\n- first point of part ${i}\n- second point with _emphasis_\n\n\`\`\`\nconst part${i} = compute(${i});\n\`\`\``,
).join("\n\n");
const REPLY_TOKENS = (REPLY.match(/\S+\s*|\s+/g) ?? []).length;

/** A throwaway project: plain-object agent (what defineAgent returns), one webui entry. */
function writeProject(): string {
  const root = mkdtempSync(join(tmpdir(), "agentsvc-bench-page-"));
  mkdirSync(join(root, "agents"));
  mkdirSync(join(root, "gateways"));
  const agent = {
    kind: "agent",
    name: "pagebench",
    model: {
      provider: "demo",
      tokenDelayMs: 8,
      script: [{ reasoning: "Planning the answer.", text: REPLY }],
    },
    memory: { type: "database" },
  };
  writeFileSync(join(root, "agents", "pagebench.mjs"), `export default ${JSON.stringify(agent)};\n`);
  writeFileSync(join(root, "gateways", "chat.yaml"), "exposes: webui\npath: /chat\ntitle: Bench\n");
  return root;
}

function seedMessages(count: number): Message[] {
  const out: Message[] = [];
  for (let i = 0; out.length < count; i++) {
    out.push({ role: "user", content: `Question ${i}: how do I configure part ${i}?` });
    out.push({
      role: "assistant",
      content: `Set **part ${i}** in \`config.yaml\`:\n\n- key \`p${i}\`\n- value ${i}\n\nSee [the docs](https://example.com/${i}).`,
      reasoning: `The user asks about part ${i}.`,
    });
  }
  return out.slice(0, count);
}

async function listenStatic(html: string): Promise<{ url: string; close(): Promise<void> }> {
  const app = new Hono();
  app.get("/index.html", (c) => c.html(html));
  const server = await new Promise<ReturnType<typeof serve>>((ok) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => ok(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/index.html`;
  return { url, close: () => new Promise((ok) => server.close(() => ok())) };
}

const COMPLETE_SIGNAL = "agentsvc-bench:history-complete";
const REPLY_SIGNAL = "agentsvc-bench:reply-finished";

async function newContext(browser: Browser, last?: string): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: { width: 1100, height: 760 },
    reducedMotion: "reduce",
  });
  if (last)
    await context.addInitScript(`localStorage.setItem("agentsvc:/chat:last", ${JSON.stringify(last)})`);
  // Tells the bench (as a console message) when the page marks its replay complete.
  await context.addInitScript(
    `new PerformanceObserver((list) => { for (const e of list.getEntries()) if (e.name === "agentsvc:history-complete") console.debug(${JSON.stringify(COMPLETE_SIGNAL)}); }).observe({ type: "mark" });`,
  );
  await context.addInitScript(
    `document.addEventListener("DOMContentLoaded", () => { const s = document.getElementById("status"); if (s) new MutationObserver(() => { if (s.textContent === "Reply finished.") console.debug(${JSON.stringify(REPLY_SIGNAL)}); }).observe(s, { childList: true, characterData: true, subtree: true }); });`,
  );
  return context;
}

/** ms from navigation start to first contentful paint, one fresh context per sample (no cache). */
async function firstPaint(browser: Browser, url: string): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < PAINT_SAMPLES; i++) {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(url, { waitUntil: "load" });
    const fcp = await page.waitForFunction(
      () => performance.getEntriesByName("first-contentful-paint")[0]?.startTime,
    );
    samples.push((await fcp.jsonValue()) as number);
    await context.close();
  }
  return samples;
}

/** ms from navigation start until the transcript holds the replayed history (page's own mark). */
async function replayTime(
  browser: Browser,
  url: string,
  conversationId: string,
): Promise<{ shown: number[]; complete: number[] }> {
  const samples: number[] = [];
  const complete: number[] = [];
  const cpuSamples: number[] = [];
  for (let i = 0; i < REPLAY_SAMPLES; i++) {
    const context = await newContext(browser, conversationId);
    const page = await context.newPage();
    const trace = process.env.BENCH_TRACE && i === REPLAY_SAMPLES - 1;
    // BENCH_DEBUG traces every sample (light categories) for its main-thread CPU time.
    if (trace)
      await browser.startTracing(page, {
        path: "/tmp/trace-replay.json",
        screenshots: false,
        categories: [
          "devtools.timeline",
          "disabled-by-default-devtools.timeline",
          "v8.execute",
          "disabled-by-default-v8.cpu_profiler",
          "blink.user_timing",
          "loading",
        ],
      });
    else if (process.env.BENCH_DEBUG)
      await browser.startTracing(page, { screenshots: false, categories: LOAD_CPU_CATEGORIES });
    // No polling from the bench while the page works (Playwright's waitForFunction injects and
    // compiles its helper script in the page, on the very main thread being measured): the page's
    // own mark is forwarded as a console message by an observer installed before the page runs.
    const completed = page.waitForEvent("console", {
      predicate: (m) => m.text() === COMPLETE_SIGNAL,
      timeout: 30_000,
    });
    await page.goto(url);
    await completed;
    const marks = await page.evaluate(() => ({
      replayed: performance.getEntriesByName("agentsvc:history-replayed")[0]?.startTime,
      complete: performance.getEntriesByName("agentsvc:history-complete")[0]?.startTime,
    }));
    if (marks.replayed === undefined || marks.complete === undefined)
      throw new Error("replay: the page set no agentsvc:history-replayed/complete marks");
    samples.push(marks.replayed);
    complete.push(marks.complete);
    const built = await page.locator("#messages .msg").count();
    if (built !== HISTORY)
      throw new Error(`replay: expected ${HISTORY} messages once complete, found ${built}`);
    const traced = trace || process.env.BENCH_DEBUG ? await browser.stopTracing() : undefined;
    if (process.env.BENCH_DEBUG && traced) {
      const { cpu, markTask } = loadCpu(traced, "agentsvc:history-replayed");
      cpuSamples.push(cpu);
      console.error(
        `replay main-thread CPU ${fmt(cpu, 1)} ms to the mark (the replay's own task ${fmt(markTask, 1)} ms)`,
      );
    }
    if (process.env.BENCH_DEBUG) {
      const timing = await page.evaluate(() =>
        performance
          .getEntriesByType("resource")
          .map(
            (e) =>
              `${e.name.replace(/^.*\/api/, "")} ${Math.round(e.startTime)}-${Math.round((e as PerformanceResourceTiming).responseEnd)}`,
          ),
      );
      const marks = await page.evaluate(() =>
        performance.getEntriesByType("mark").map((m) => `${m.name} ${Math.round(m.startTime)}`),
      );
      const nav = await page.evaluate(() => {
        const n = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined;
        return n
          ? `html ${Math.round(n.requestStart)}-${Math.round(n.responseStart)}-${Math.round(n.responseEnd)}, interactive ${Math.round(n.domInteractive)}`
          : "";
      });
      console.error(`replay ${samples.at(-1)}: ${nav} | ${timing.join(", ")} | ${marks.join(", ")}`);
    }
    await context.close();
  }
  if (cpuSamples.length)
    console.error(
      `replay main-thread CPU p50 ${fmt(percentile(cpuSamples, 50), 1)} ms (min ${fmt(Math.min(...cpuSamples), 1)}, max ${fmt(Math.max(...cpuSamples), 1)})`,
    );
  return { shown: samples, complete };
}

const METRICS = [
  "TaskDuration",
  "ScriptDuration",
  "LayoutDuration",
  "RecalcStyleDuration",
  "TaskOtherDuration",
  // The main thread's CPU time: unlike the task durations above, it does not grow when a loaded
  // machine takes the CPU away mid-task, so it compares runs made under different load.
  "ThreadTime",
] as const;

/** Cumulative main-thread seconds (CDP Performance domain) of one page. */
async function metrics(cdp: Awaited<ReturnType<BrowserContext["newCDPSession"]>>) {
  const { metrics: list } = (await cdp.send("Performance.getMetrics")) as {
    metrics: { name: string; value: number }[];
  };
  const get = (name: string) => list.find((m) => m.name === name)?.value ?? 0;
  return Object.fromEntries(METRICS.map((m) => [m, get(m)])) as Record<(typeof METRICS)[number], number>;
}

interface Streamer {
  /** Main-thread ms per streamed token of one reply streamed into this page's conversation. */
  sample(i: number): Promise<number>;
  close(): Promise<void>;
}

/** A page on one conversation, ready to stream replies once its replay is complete. */
async function openStreamer(
  browser: Browser,
  url: string,
  conversationId: string,
  label: string,
): Promise<Streamer> {
  const context = await newContext(browser, conversationId);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Performance.enable");
  await page.goto(url);
  // Measure once the replay's deferred groups are built: that one-off work is reported by the
  // replay rows, and here it would land on the first tokens of a long conversation only.
  await page.waitForFunction(
    () => performance.getEntriesByName("agentsvc:history-complete").length > 0,
    undefined,
    { timeout: 30_000 },
  );
  return {
    async sample(i) {
      await page.waitForTimeout(300); // let the previous turn's follow-up work settle
      // Typed and awaited without Playwright's injected helpers (they would run on the measured
      // main thread): one evaluate, a CDP key press, and the page's status line forwarded as a
      // console message (see newContext).
      await page.evaluate((text) => {
        const input = document.getElementById("input") as HTMLTextAreaElement;
        input.value = text;
        input.dispatchEvent(new Event("input"));
        input.focus();
      }, `stream sample ${i}`);
      const finished = page.waitForEvent("console", {
        predicate: (m) => m.text() === REPLY_SIGNAL,
        timeout: 60_000,
      });
      const trace = process.env.BENCH_TRACE && i === STREAM_SAMPLES - 1;
      if (trace)
        await browser.startTracing(page, {
          path: `/tmp/trace-stream-${label}.json`,
          screenshots: false,
          categories: ["devtools.timeline", "disabled-by-default-devtools.timeline", "blink.user_timing"],
        });
      const before = await metrics(cdp);
      await page.keyboard.press("Enter");
      await finished;
      const after = await metrics(cdp);
      if (trace) await browser.stopTracing();
      if (process.env.BENCH_DEBUG) {
        const per = (k: (typeof METRICS)[number]) => fmt(((after[k] - before[k]) * 1000) / REPLY_TOKENS, 3);
        console.error(`stream ${conversationId}: ${METRICS.map((k) => `${k} ${per(k)}`).join(", ")}`);
      }
      await page.evaluate(() => {
        const s = document.getElementById("status");
        if (s) s.textContent = "";
      });
      return ((after.TaskDuration - before.TaskDuration) * 1000) / REPLY_TOKENS;
    },
    close: () => context.close(),
  };
}

/**
 * Per-token cost in each conversation, the samples interleaved round by round (rotating who goes
 * first), so a drift of the machine's speed during the run hits every conversation alike.
 */
async function cpuPerToken(
  browser: Browser,
  url: string,
  conversations: { id: string; label: string }[],
): Promise<number[][]> {
  const streamers = await Promise.all(conversations.map((c) => openStreamer(browser, url, c.id, c.label)));
  const samples: number[][] = conversations.map(() => []);
  try {
    for (let round = 0; round < STREAM_SAMPLES; round++) {
      for (let k = 0; k < streamers.length; k++) {
        const j = (round + k) % streamers.length;
        (samples[j] as number[]).push(await (streamers[j] as Streamer).sample(round));
      }
    }
  } finally {
    for (const s of streamers) await s.close();
  }
  return samples;
}

async function createConversation(server: RunningServer, title: string): Promise<string> {
  const res = await fetch(`${server.url}/chat/api/conversations/create`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ title }),
  });
  const body = (await res.json()) as { conversationId?: string };
  if (!body.conversationId) throw new Error(`conversations/create answered ${res.status}`);
  return body.conversationId;
}

export async function benchPage(): Promise<Row[]> {
  const loaded = await loadProject(writeProject());
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  const root = loaded.project.root;
  const server = await startServer(loaded.project, {
    port: 0,
    logger: pino({ level: "silent" }),
    env: {},
    buildDir: join(root, "build"),
    interactive: false,
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
    ],
  });
  const pageUrl = `${server.url}/chat/index.html`;
  const html = await (await fetch(pageUrl)).text();
  const css = html.match(/<style>[\s\S]*?<\/style>/)?.[0] ?? "";
  const cssOnly = `<!doctype html><html><head><meta charset="utf-8"><title>x</title>${css}</head><body></body></html>`;
  const minimal = await listenStatic(
    "<!doctype html><html><head><title>x</title></head><body><p>Hello</p></body></html>",
  );
  try {
    const gz = gzipSync(html).length;
    const cssGz = gzipSync(cssOnly).length;

    const only = process.env.BENCH_PAGE_ONLY;
    const rows: Row[] = [];
    rows.push({
      metric: "index.html bytes raw / gzip",
      value: `${html.length} / ${gz}`,
      baseline: `CSS only: ${Buffer.byteLength(cssOnly)} / ${cssGz}`,
      ratio: `${fmt(gz / cssGz)}x`,
      target: `gzip <= 30720 (${fmt(gz / 1024, 1)} KB)`,
    });
    const long = await createConversation(server, "long history");
    await server.memory.append({ userId: SHARED_USER, conversationId: long }, seedMessages(HISTORY));
    if (only !== "stream") rows.push(...(await replayRows(browser, pageUrl, minimal.url, long)));
    if (only !== "replay") rows.push(...(await streamRows(browser, server, pageUrl, long)));
    return rows;
  } finally {
    await browser.close();
    await minimal.close();
    await server.shutdown();
  }
}

async function replayRows(
  browser: Browser,
  pageUrl: string,
  minimalUrl: string,
  long: string,
): Promise<Row[]> {
  const paint = percentile(await firstPaint(browser, pageUrl), 50);
  const paintBase = percentile(await firstPaint(browser, minimalUrl), 50);
  const { shown: replay, complete } = await replayTime(browser, pageUrl, long);
  return [
    {
      metric: "first contentful paint p50 ms",
      value: fmt(paint, 1),
      baseline: `minimal page ${fmt(paintBase, 1)}`,
      ratio: `${fmt(paint / paintBase)}x`,
      target: "",
    },
    {
      metric: `replay ${HISTORY} messages p50 / min / max ms`,
      value: `${fmt(percentile(replay, 50), 0)} / ${fmt(Math.min(...replay), 0)} / ${fmt(Math.max(...replay), 0)}`,
      baseline: "budget 250",
      ratio: `${fmt(percentile(replay, 50) / 250)}x`,
      target: "<= 250 ms",
    },
    {
      metric: "replay: every older group built p50 ms",
      value: fmt(percentile(complete, 50), 0),
      baseline: `on screen ${fmt(percentile(replay, 50), 0)}`,
      ratio: `${fmt(percentile(complete, 50) / percentile(replay, 50))}x`,
      target: "(idle time, after the replay)",
    },
  ];
}

async function streamRows(
  browser: Browser,
  server: RunningServer,
  pageUrl: string,
  long: string,
): Promise<Row[]> {
  const short = await createConversation(server, "short history");
  await server.memory.append({ userId: SHARED_USER, conversationId: short }, seedMessages(SHORT_HISTORY));
  const [early, late] = (
    await cpuPerToken(browser, pageUrl, [
      { id: short, label: String(SHORT_HISTORY) },
      { id: long, label: String(HISTORY) },
    ])
  ).map((x) => percentile(x, 50)) as [number, number];
  return [
    {
      metric: `main-thread ms per streamed token after ${SHORT_HISTORY} msgs (${REPLY_TOKENS} tokens)`,
      value: fmt(early, 3),
      baseline: "budget 1",
      ratio: `${fmt(early / 1)}x`,
      target: "<= 1 ms",
    },
    {
      metric: `main-thread ms per streamed token after ${HISTORY} msgs (${REPLY_TOKENS} tokens)`,
      value: fmt(late, 3),
      baseline: `after ${SHORT_HISTORY} msgs ${fmt(early, 3)}`,
      ratio: `${fmt(late / early)}x`,
      target: "<= 1 ms, flat (~1x)",
    },
  ];
}
