// `pnpm dev:fakes`: the project against local Telegram, Slack and Discord fakes. Prints one
// conversation per platform, then keeps running (Ctrl-C to stop); `--once` exits after it;
// `--port N` serves agentsvc on 127.0.0.1:N (default: any free port).
import { parseArgs } from "node:util";
import { playConversations, startDemo } from "./conversation.ts";

// `pnpm dev:fakes -- --once` may hand the script the `--` itself.
const args = process.argv.slice(2).filter((a) => a !== "--");
const { values } = parseArgs({ args, options: { once: { type: "boolean" }, port: { type: "string" } } });
const port = values.port === undefined ? undefined : Number(values.port);
if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) {
  console.error(`--port: expected a port number 0-65535 (got "${values.port}")`);
  process.exit(2);
}
const demo = await startDemo(port === undefined ? {} : { port });
console.log(`agentsvc at ${demo.server.url}`);
console.log(
  `fakes: telegram ${demo.telegram.url}, slack ${demo.slack.apiBaseUrl}, discord ${demo.discord.apiBaseUrl}\n`,
);
try {
  await playConversations(demo, (line) => console.log(line));
} catch (err) {
  console.error(err);
  process.exitCode = 1;
}
if (values.once || process.exitCode) {
  await demo.close();
} else {
  console.log("\nStill running; Ctrl-C to stop.");
  process.once("SIGINT", () => void demo.close().then(() => process.exit(0)));
}
