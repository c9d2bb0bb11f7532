// Matrix and Mattermost entries (issue #42) through the installed bin: the packed adapter packages
// installed with npm, an entry of the built-in type pointed at the testkit fake, a user's message
// answered on the platform. Matrix: /sync long-poll and PUT send; Mattermost: the WebSocket and
// POST /api/v4/posts.
import { eventually, MatrixFake, MattermostFake, within } from "@agentsvc/testkit";
import { expect } from "vitest";
import type { BlockRow } from "./block-rows.js";

const REPLY_MS = 20_000;

export const CONNECTION_ROW_PACKAGES = ["@agentsvc/gateway-matrix", "@agentsvc/gateway-mattermost"];

export const CONNECTION_ROWS: BlockRow[] = [
  {
    block: "gateways/matrix.yaml (type: matrix)",
    behaviour: "answers a Matrix room message read by the /sync long-poll, with a PUT send",
    async run(ctx) {
      const fake = await MatrixFake.start();
      ctx.cleanup(() => fake.close());
      ctx.write({
        "gateways/matrix.yaml": `type: matrix\naccessTokenEnvVar: MATRIX_TOKEN\nhomeserverUrl: ${fake.url}\n`,
      });
      await ctx.start({ env: { MATRIX_TOKEN: fake.token } });
      // A new bot takes the current position first; what is written after it is answered.
      await within(fake.firstSync(), REPLY_MS, "the bot's first /sync");
      fake.userSends("!room:fake.local", "@ada:fake.local", { msgtype: "m.text", body: "hello from matrix" });
      await eventually(() => fake.sent.length > 0, "the Matrix reply", REPLY_MS);
      expect(fake.sent[0]).toMatchObject({ roomId: "!room:fake.local", type: "m.room.message" });
      expect(String(fake.sent[0]?.content.body)).toContain("hello from matrix");
    },
  },
  {
    block: "gateways/mattermost.yaml (type: mattermost)",
    behaviour: "answers a Mattermost direct message read on the WebSocket, with a REST post",
    async run(ctx) {
      const fake = await MattermostFake.start();
      ctx.cleanup(() => fake.close());
      ctx.write({
        "gateways/mattermost.yaml": `type: mattermost\ntokenEnvVar: MM_TOKEN\nserverUrl: ${fake.url}\n`,
      });
      await ctx.start({ env: { MM_TOKEN: fake.token } });
      await within(fake.connected(), REPLY_MS, "the bot's WebSocket");
      fake.userPosts("dmchan00000000000000000000", "alice000000000000000000000", "hello from mattermost");
      await eventually(() => fake.botPosts.length > 0, "the Mattermost reply", REPLY_MS);
      expect(fake.botPosts[0]).toMatchObject({ channel_id: "dmchan00000000000000000000" });
      expect(fake.botPosts[0]?.message).toContain("hello from mattermost");
    },
  },
];
