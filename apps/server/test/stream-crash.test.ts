// Replies streaming into Discord and into a Telegram private chat survive a SIGKILL of the server
// process: after the restart each turn runs again and takes its draft up again (the ids are in the
// gateway's durable state): Discord edits the same message to the whole reply, Telegram goes on
// with the same draft_id and then sends the message. Each user ends with exactly one message,
// complete, and no draft is left in the state.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ChatDb } from "@agentsvc/chat-store";
import { DiscordFake, eventually, freePort, TelegramFake } from "@agentsvc/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { ServerProcess } from "./crash-driver.js";

const fixture = resolve(import.meta.dirname, "fixtures/stream-crash");
/** What the fixture's demo model answers (40 tokens, 100 ms each). */
const REPLY = Array.from({ length: 40 }, (_, i) => `token${i + 1}`).join(" ");
const DM = "800000000000000001";

// The app root holds the store, and node_modules with the server's packages plus the Discord and
// Telegram adapters (they need their dist: `pnpm build`), as an app that installed them.
const root = mkdtempSync(join(tmpdir(), "agentsvc-stream-crash-"));
const serverModules = resolve(import.meta.dirname, "../node_modules/@agentsvc");
const modules = join(root, "node_modules", "@agentsvc");
mkdirSync(modules, { recursive: true });
for (const name of readdirSync(serverModules))
  symlinkSync(join(serverModules, name), join(modules, name), "dir");
// The server's own devDependencies may already hold it (it links the webhook adapters).
for (const adapter of ["gateway-discord", "gateway-telegram"])
  if (!existsSync(join(modules, adapter)))
    symlinkSync(resolve(import.meta.dirname, "../../../packages", adapter), join(modules, adapter), "dir");
afterAll(() => rmSync(root, { recursive: true, force: true }));

const PRIVATE_CHAT = 4242;

describe("streamed replies across a crash (separate process, SIGKILL)", () => {
  it("end with exactly one complete message on Discord and on Telegram, and no draft left in the gateway state", async () => {
    const discord = await DiscordFake.start();
    const telegram = await TelegramFake.start();
    const server = new ServerProcess(
      root,
      await freePort(),
      {
        DISCORD_TOKEN: discord.token,
        STREAM_DISCORD_API: discord.apiBaseUrl,
        TELEGRAM_TOKEN: telegram.token,
        STREAM_TELEGRAM_API: telegram.url,
      },
      fixture,
    );
    const draft = () => discord.rest.botMessages.find((m) => m.channelId === DM);
    const drafts = () => telegram.chat.drafts.filter((d) => d.chatId === PRIVATE_CHAT);
    const finals = () => telegram.chat.botMessages.filter((m) => m.chatId === PRIVATE_CHAT);
    try {
      await server.start();
      await eventually(() => discord.sessions.current !== undefined, "the Discord bot connected", 10_000);
      discord.sessions.userSays({ channelId: DM, authorId: "700000000000000001", content: "hello" });
      telegram.chat.userSends({ chatId: PRIVATE_CHAT, text: "hello", from: { id: PRIVATE_CHAT } });
      // Mid-stream on both: the Discord draft posted and edited, two Telegram drafts shown.
      await eventually(
        () => (draft()?.edits ?? 0) >= 1 && drafts().length >= 2,
        "both replies streaming",
        10_000,
      );
      expect(draft()?.content).not.toBe(REPLY);
      expect(finals()).toEqual([]);
      server.kill();
      expect(await server.waitForExit(5_000)).toBe("SIGKILL");
      const cut = draft()?.content ?? "";

      await server.start();
      await eventually(
        () => draft()?.content === REPLY && finals().length > 0,
        "both replies finished",
        20_000,
      );
      await new Promise((r) => setTimeout(r, 1_500)); // a late second message would show up here
      expect(discord.rest.botMessages.filter((m) => m.channelId === DM).map((m) => m.content)).toEqual([
        REPLY,
      ]);
      expect(cut.length).toBeLessThan(REPLY.length);
      // The restarted process does not know the edits the killed one made: a 429 may come (at most
      // once: its retry_after is honoured) and never costs the final text.
      expect(discord.rest.rateLimited.length).toBeLessThanOrEqual(1);
      expect(finals().map((m) => m.text)).toEqual([REPLY]);
      // One draft across the crash: the restarted turn went on with the same draft_id.
      expect(new Set(drafts().map((d) => d.draftId)).size).toBe(1);
      expect(await server.stop()).toBe(0);
    } finally {
      server.kill();
      await discord.close();
      await telegram.close();
    }
    const db = ChatDb.open({ appRoot: root, path: "./data/agentsvc.db" });
    try {
      expect(await db.outbox.countByStatus("pending")).toBe(0);
      expect(await db.inbox.unfinished()).toEqual([]);
      for (const gateway of ["discord", "telegram"])
        for (const id of [1, 2])
          expect(
            await db.gatewayState.get(gateway, `draft:in${id}`),
            `${gateway} draft:in${id}`,
          ).toBeUndefined();
    } finally {
      db.close();
    }
  }, 90_000);
});
