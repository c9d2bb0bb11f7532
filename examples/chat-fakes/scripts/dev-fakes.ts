// `pnpm dev:fakes`: the project against local Telegram, Slack and Discord fakes. Prints one
// conversation per platform, then keeps running (Ctrl-C to stop); `--once` exits after it.
import { playConversations, startDemo } from "./conversation.ts";

const demo = await startDemo();
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
if (process.argv.includes("--once") || process.exitCode) {
  await demo.close();
} else {
  console.log("\nStill running; Ctrl-C to stop.");
  process.once("SIGINT", () => void demo.close().then(() => process.exit(0)));
}
