// One server process for the body-limit test, run from the TypeScript sources (vite-node): the
// project at argv[2] on an ephemeral port of 127.0.0.1. Prints "READY <port>" once serving. On
// each stdin line "rss" it answers "RSS <peak since the last ask> <now>" (bytes), sampled every
// 2 ms so a body buffered and released between two asks still shows.
import { createInterface } from "node:readline";
import { loadProject } from "@agentsvc/config-schema";
import pino from "pino";
import { startServer } from "../src/index.js";

const root = process.argv[2] as string;
const loaded = await loadProject(root);
if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
const server = await startServer(loaded.project, {
  port: 0,
  logger: pino({ level: process.env.FLOOD_LOG_LEVEL ?? "silent" }),
  env: JSON.parse(process.env.FLOOD_ENV ?? "{}") as Record<string, string>,
  interactive: false,
});

let peak = process.memoryUsage.rss();
setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
}, 2).unref();

createInterface({ input: process.stdin }).on("line", (line) => {
  if (line.trim() === "rss") {
    const gc = (globalThis as { gc?: () => void }).gc;
    const now = process.memoryUsage.rss();
    process.stdout.write(`RSS ${Math.max(peak, now)} ${now}\n`);
    gc?.();
    peak = process.memoryUsage.rss();
  }
});
process.stdin.on("end", () => {
  void server.shutdown().then(() => process.exit(0));
});
process.stdout.write(`READY ${server.port}\n`);
