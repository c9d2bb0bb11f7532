// Telegram's Bot API for the adapter-send bench, in a process of its own (its CPU is not the
// client's): the testkit fake, whose server keeps connections alive. Prints "<url> <token>".
import { TelegramFake } from "@agentsvc/testkit";

const fake = await TelegramFake.start();
console.log(`${fake.url} ${fake.token}`);
process.on("SIGTERM", () => {
  void fake.close().then(() => process.exit(0));
});
