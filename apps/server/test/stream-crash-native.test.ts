// Replies streaming natively into a Slack channel thread (chat.startStream/appendStream) and a
// one-on-one Teams chat (the streaming protocol) survive a SIGKILL of the server process. After the
// restart each turn runs again and finds its stream's ids in the gateway's durable state: Slack's
// left stream is stopped and its message updated to the whole reply; Teams' left stream gets no more
// updates (its sequence is unknown) and is ended by the final message. Each user ends with exactly
// one complete message, no stream is left open, and no draft is left in the state.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ChatDb } from "@agentsvc/chat-store";
import { eventually, freePort, FakeTeams, SlackFake } from "@agentsvc/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { ServerProcess } from "./crash-driver.js";

const fixture = resolve(import.meta.dirname, "fixtures/stream-crash-native");
/** What the fixture's demo model answers (40 tokens, 100 ms each). */
const REPLY = Array.from({ length: 40 }, (_, i) => `token${i + 1}`).join(" ");
const APP = { id: "00000000-1111-2222-3333-555555555555", password: "stream-crash-~pw~" };
const TEAMS_CHAT = "a:1streamcrash";

// The app root holds the store, and node_modules with the server's packages plus the Slack and
// Teams adapters (they need their dist: `pnpm build`), as an app that installed them.
const root = mkdtempSync(join(tmpdir(), "agentsvc-stream-crash-native-"));
const serverModules = resolve(import.meta.dirname, "../node_modules/@agentsvc");
const modules = join(root, "node_modules", "@agentsvc");
mkdirSync(modules, { recursive: true });
for (const name of readdirSync(serverModules))
  symlinkSync(join(serverModules, name), join(modules, name), "dir");
// The server's own devDependencies may already hold it (it links the webhook adapters).
for (const adapter of ["gateway-slack", "gateway-teams"])
  if (!existsSync(join(modules, adapter)))
    symlinkSync(resolve(import.meta.dirname, "../../../packages", adapter), join(modules, adapter), "dir");
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("native streamed replies across a crash (separate process, SIGKILL)", () => {
  it("end with exactly one complete message on Slack (stream stopped) and on Teams (stream finalised), and no draft left in the gateway state", async () => {
    const port = await freePort();
    const slack = await SlackFake.start({ echoOwnMessages: false });
    const teams = await FakeTeams.start({
      appId: APP.id,
      appPassword: APP.password,
      webhookUrl: `http://127.0.0.1:${port}/webhooks/teams`,
    });
    const server = new ServerProcess(
      root,
      port,
      {
        SLACK_BOT_TOKEN: slack.botToken,
        SLACK_APP_TOKEN: slack.appToken,
        STREAM_SLACK_API: slack.apiBaseUrl,
        TEAMS_APP_ID: APP.id,
        TEAMS_APP_PASSWORD: APP.password,
        STREAM_TEAMS_OPENID: teams.openIdMetadataUrl,
        STREAM_TEAMS_LOGIN: teams.loginBaseUrl,
        STREAM_TEAMS_SERVICE: teams.serviceUrl,
      },
      fixture,
    );
    const slackReply = () => slack.workspace.botMessages.filter((m) => m.channel === "C0001");
    const slackCalls = (method: string) => slack.calls.filter((c) => c.method === method);
    const teamsStreams = () => teams.streams.filter((s) => s.conversationId === TEAMS_CHAT);
    try {
      await server.start();
      await eventually(() => slack.openConnections.length === 1, "the Slack socket connected", 10_000);
      await slack.workspace.userSays({
        channel: "C0001",
        user: "U0001",
        text: `<@${slack.workspace.botUserId}> hello`,
      }).acked;
      const alice = { id: "29:1alice", name: "Alice", aadObjectId: "aad-alice" };
      expect(
        (await teams.deliverMessage({ conversationId: TEAMS_CHAT, from: alice, text: "hello" })).status,
      ).toBe(200);
      // Mid-stream on both: Slack's stream started and appended to, Teams' stream updated twice.
      await eventually(
        () => slackCalls("chat.appendStream").length >= 1 && (teamsStreams()[0]?.updates.length ?? 0) >= 2,
        "both replies streaming",
        10_000,
      );
      expect(slackReply()[0]?.streaming).toBe(true);
      expect(teamsStreams()[0]?.final).toBeUndefined();
      server.kill();
      expect(await server.waitForExit(5_000)).toBe("SIGKILL");
      const cut = slackReply()[0]?.text ?? "";

      await server.start();
      await eventually(
        () =>
          slackReply()[0]?.text === REPLY &&
          slackReply()[0]?.streaming === false &&
          teamsStreams()[0]?.final !== undefined,
        "both replies finished",
        20_000,
      );
      await new Promise((r) => setTimeout(r, 1_500)); // a late second message would show up here
      expect(cut.length).toBeLessThan(REPLY.length);
      // Slack: one message, the left stream stopped once, no second stream started.
      expect(slackReply().map((m) => m.text)).toEqual([REPLY]);
      expect(slackCalls("chat.startStream")).toHaveLength(1);
      expect(slackCalls("chat.stopStream")).toHaveLength(1);
      expect(slackCalls("chat.postMessage")).toEqual([]);
      // Teams: one stream, finalised with the whole reply, which is the one message sent.
      expect(teams.streamRefusals).toEqual([]);
      expect(teamsStreams()).toHaveLength(1);
      expect(teamsStreams()[0]?.final).toBe(REPLY);
      expect(teams.sent.filter((s) => s.conversationId === TEAMS_CHAT).map((s) => s.text)).toEqual([REPLY]);
      expect(await server.stop()).toBe(0);
    } finally {
      server.kill();
      await slack.close();
      await teams.close();
    }
    const db = ChatDb.open({ appRoot: root, path: "./data/agentsvc.db" });
    try {
      expect(await db.outbox.countByStatus("pending")).toBe(0);
      expect(await db.inbox.unfinished()).toEqual([]);
      for (const gateway of ["slack", "teams"])
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
