// A reply streaming into Discord survives a SIGKILL of the server process: after the restart the
// turn runs again, takes the same draft message up again (its id is in the gateway's durable
// state) and ends it with the whole reply. The user ends with exactly one message, complete, and
// no draft is left behind.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ChatDb } from "@agentsvc/chat-store";
// testkit depends on the server, so the server reaches the fake by path (no package cycle; built by `pnpm build`).
import { DiscordFake } from "../../../packages/testkit/dist/discord/index.js";
import { eventually } from "../../../packages/testkit/dist/wait.js";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, ServerProcess } from "./crash-driver.js";

const fixture = resolve(import.meta.dirname, "fixtures/stream-crash");
/** What the fixture's demo model answers (40 tokens, 100 ms each). */
const REPLY = Array.from({ length: 40 }, (_, i) => `token${i + 1}`).join(" ");
const DM = "800000000000000001";

// The app root holds the store, and node_modules with the server's packages plus the Discord
// adapter (needs its dist: `pnpm build`), as an app that installed it.
const root = mkdtempSync(join(tmpdir(), "agentsvc-stream-crash-"));
const serverModules = resolve(import.meta.dirname, "../node_modules/@agentsvc");
const modules = join(root, "node_modules", "@agentsvc");
mkdirSync(modules, { recursive: true });
for (const name of readdirSync(serverModules))
  symlinkSync(join(serverModules, name), join(modules, name), "dir");
symlinkSync(
  resolve(import.meta.dirname, "../../../packages/gateway-discord"),
  join(modules, "gateway-discord"),
  "dir",
);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a streamed reply across a crash (separate process, SIGKILL)", () => {
  it("ends with exactly one complete message on Discord and no draft left in the gateway state", async () => {
    const fake = await DiscordFake.start();
    const server = new ServerProcess(
      root,
      await freePort(),
      { DISCORD_TOKEN: fake.token, STREAM_DISCORD_API: fake.apiBaseUrl },
      fixture,
    );
    try {
      await server.start();
      await eventually(() => fake.sessions.current !== undefined, "the bot connected", 10_000);
      fake.sessions.userSays({ channelId: DM, authorId: "700000000000000001", content: "hello" });
      const draft = () => fake.rest.botMessages.find((m) => m.channelId === DM);
      // Mid-stream: the draft was posted and edited at least once, and is not complete.
      await eventually(() => (draft()?.edits ?? 0) >= 1, "the draft edited once", 10_000);
      expect(draft()?.content).not.toBe(REPLY);
      server.kill();
      expect(await server.waitForExit(5_000)).toBe("SIGKILL");
      const cut = draft()?.content ?? "";

      await server.start();
      await eventually(() => draft()?.content === REPLY, "the draft finished with the whole reply", 20_000);
      await new Promise((r) => setTimeout(r, 1_500)); // a late second message would show up here
      expect(fake.rest.botMessages.filter((m) => m.channelId === DM).map((m) => m.content)).toEqual([REPLY]);
      expect(cut.length).toBeLessThan(REPLY.length);
      // The restarted process does not know the edits the killed one made: a 429 may come (at most
      // once: its retry_after is honoured) and never costs the final text.
      expect(fake.rest.rateLimited.length).toBeLessThanOrEqual(1);
      expect(await server.stop()).toBe(0);
    } finally {
      server.kill();
      await fake.close();
    }
    const db = ChatDb.open({ appRoot: root, path: "./data/agentsvc.db" });
    try {
      expect(await db.outbox.countByStatus("pending")).toBe(0);
      expect(await db.inbox.unfinished()).toEqual([]);
      expect(await db.gatewayState.get("discord", "draft:in1")).toBeUndefined();
    } finally {
      db.close();
    }
  }, 90_000);
});
