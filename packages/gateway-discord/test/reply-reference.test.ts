// A reply points at the user's message with message_reference and fail_if_not_exists: false, so a
// message deleted meanwhile does not make Discord refuse the reply (Create Message, message reference
// object: https://discord.com/developers/docs/resources/message#message-reference-structure); a send
// that answers no message carries no reference.
import { afterEach, expect, it } from "vitest";
import { CHANNELS } from "./harness.js";
import { type Rigged, startRig, stopRig } from "./rig.js";

let r: Rigged | undefined;
afterEach(async () => {
  await stopRig(r);
  r = undefined;
});

it("a reply references the user's message without failing if it is gone; a plain send references nothing", async () => {
  r = await startRig();
  const gw = r.rig.gateway;
  await gw.send(CHANNELS[0], "answer", {
    idempotencyKey: "rr1",
    attempt: 1,
    meta: { messageId: "1200000000000000001" },
  });
  await gw.send(CHANNELS[0], "notice", { idempotencyKey: "rr2", attempt: 1 });
  const posts = r.h.fake.calls.filter((c) => c.method === "POST" && /\/messages$/.test(c.path));
  expect(posts.map((c) => c.body.message_reference)).toEqual([
    { message_id: "1200000000000000001", fail_if_not_exists: false },
    undefined,
  ]);
});
