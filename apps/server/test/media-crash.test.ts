// A 10 MB picture survives a SIGKILL of the server process in the middle of its download: after the
// restart Telegram hands the update out again, the file is fetched once more (not twice more), stored
// as one blob, and the message gets exactly one turn, with the picture on its user message, and one
// reply.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ChatDb } from "@agentsvc/chat-store";
import { eventually, freePort, TelegramFake, within } from "@agentsvc/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { ServerProcess } from "./crash-driver.js";

const fixture = resolve(import.meta.dirname, "fixtures/media-crash");
const CHAT = 5151;
const MB = 1024 * 1024;
// Each step's own bound, well under the test's 90 s: a step that never happens fails naming itself
// (a CI run once spent all 90 s in an unbounded `await halfway`, nothing said where it stopped).
const STEP_MS = 30_000;

// The app root holds the store, and node_modules with the server's packages plus the Telegram
// adapter (its dist: `pnpm build`), as an app that installed them.
const root = mkdtempSync(join(tmpdir(), "agentsvc-media-crash-"));
const serverModules = resolve(import.meta.dirname, "../node_modules/@agentsvc");
const modules = join(root, "node_modules", "@agentsvc");
mkdirSync(modules, { recursive: true });
for (const name of readdirSync(serverModules))
  symlinkSync(join(serverModules, name), join(modules, name), "dir");
if (!existsSync(join(modules, "gateway-telegram")))
  symlinkSync(
    resolve(import.meta.dirname, "../../../packages/gateway-telegram"),
    join(modules, "gateway-telegram"),
    "dir",
  );
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("an attachment's download across a crash (separate process, SIGKILL)", () => {
  it("answers the message exactly once with its 10 MB picture, fetched at most once more and stored as one blob", async () => {
    const telegram = await TelegramFake.start();
    const server = new ServerProcess(
      root,
      await freePort(),
      { TELEGRAM_TOKEN: telegram.token, MEDIA_TELEGRAM_API: telegram.url },
      fixture,
    );
    const photo = Buffer.concat([Buffer.from("ffd8ffe000104a464946", "hex"), Buffer.alloc(10 * MB - 10, 7)]);
    const sha256 = createHash("sha256").update(photo).digest("hex");
    const replies = () => telegram.chat.botMessages.filter((m) => m.chatId === CHAT);
    // What the bot had asked Telegram when a step did not happen: where it stopped.
    const since = Date.now();
    const asked = () => telegram.calls.map((c) => `${c.method} +${c.at - since} ms`).join(", ") || "nothing";
    const told = (err: Error): never => {
      throw new Error(`${err.message}; the bot had asked Telegram: ${asked()}; stderr: ${server.stderr}`);
    };
    const step = <T>(promise: Promise<T>, what: string): Promise<T> =>
      within(promise, STEP_MS, what).catch(told);
    try {
      await server.start();
      const halfway = telegram.files.stallNextDownload(4 * MB);
      const ids = telegram.files.host(photo, "jpg");
      telegram.pushUpdate({
        message: {
          message_id: 1,
          from: { id: CHAT, is_bot: false, first_name: "Ada" },
          chat: { id: CHAT, type: "private" },
          date: Math.floor(Date.now() / 1000),
          photo: [{ ...ids, width: 3000, height: 2000 }],
        },
      });
      await step(halfway, "the photo's download reaching 4 MB (getUpdates, getFile, then the file)");
      server.kill();
      expect(await server.waitForExit(5_000)).toBe("SIGKILL");
      expect(replies()).toEqual([]);

      await server.start();
      await eventually(() => replies().length > 0, "the reply after the restart", STEP_MS).catch(told);
      await new Promise((r) => setTimeout(r, 1_500)); // a second reply would show up here
      expect(replies()).toHaveLength(1);
      // The interrupted transfer and the one after the restart: never a third.
      expect([...telegram.files.downloads.values()]).toEqual([2]);
      expect(await step(server.stop(), "the server's exit after SIGTERM")).toBe(0);
    } finally {
      server.kill();
      await telegram.close();
    }
    const db = ChatDb.open({ appRoot: root, path: "./data/agentsvc.db" });
    try {
      expect(await db.inbox.unfinished()).toEqual([]);
      expect(await db.outbox.countByStatus("pending")).toBe(0);
      expect(await db.blobs.info(sha256)).toMatchObject({ size: photo.length, contentType: "image/jpeg" });
      let pieces = 0;
      let bytes = 0;
      for await (const piece of db.blobs.pieces(sha256)) {
        pieces++;
        bytes += piece.length;
      }
      expect({ pieces, bytes }).toEqual({ pieces: 40, bytes: photo.length });
      const stored = await db
        .createMemory({ canSummarize: false })
        .load({ userId: "telegram", conversationId: String(CHAT) });
      const users = stored.filter((m) => m.role === "user");
      expect(users).toEqual([
        {
          role: "user",
          content: "",
          attachments: [expect.objectContaining({ blob: sha256, kind: "image", size: photo.length })],
        },
      ]);
    } finally {
      db.close();
    }
  }, 90_000);
});
