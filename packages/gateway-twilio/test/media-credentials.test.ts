// Where the account's Basic credentials go when an MMS file is fetched. Twilio asks for them on the
// Media URL on its API ("Enforce HTTP Auth on Media URLs",
// https://help.twilio.com/articles/223183748-Protect-Media-Access-with-HTTP-Basic-Authentication-for-Programmable-Messaging);
// the URL it redirects to (mms.twiliocdn.com, valid 4 hours; s3-external-1.amazonaws.com for
// unprotected media) needs none. The Twilio fake at 127.0.0.1 stands in for api.twilio.com (the
// entry's apiBaseUrl); a second server on another port of 127.0.0.1 (an allowed host, another
// origin) stands in for the storage host.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { type StartedGateway, startGatewayAlone } from "@agentsvc/testkit/session";
import { afterEach, expect, it } from "vitest";
import { type TwilioWorld, twilioWorld } from "./harness.js";

const user = "+15550001234";
const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(1500, 3)]);
const media = { types: ["image" as const], maxBytes: 1_000_000 };

let world: TwilioWorld | undefined;
let started: StartedGateway | undefined;
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  await started?.stop();
  await world?.close();
  for (const close of closers.splice(0)) await close();
});

/** A storage host: serves the bytes to anyone, and keeps what each request carried. */
async function storageHost() {
  const seen: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    seen.push(req);
    res.writeHead(200, { "content-type": "image/png" }).end(PNG);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  closers.push(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

it("sends no credentials to a Media URL on a storage host, and still takes its file in", async () => {
  world = await twilioWorld();
  started = await startGatewayAlone(world.build({ media }));
  const storage = await storageHost();
  const answer = await world.fake.deliverMms({
    from: user,
    body: "",
    media: [
      { url: `${storage.url}/2010-04-01/ME0123456789abcdef0123456789abcdef`, contentType: "image/png" },
    ],
  });
  expect(answer.status).toBe(200);
  expect(storage.seen).toHaveLength(1);
  expect(storage.seen[0]?.headers.authorization).toBeUndefined();
  const refs = started.delivered[0]?.attachments ?? [];
  expect(refs).toMatchObject([{ kind: "image", contentType: "image/png" }]);
});

// The Media URL on Twilio's API still gets them: media-in.test.ts (the fake answers 401 without).
