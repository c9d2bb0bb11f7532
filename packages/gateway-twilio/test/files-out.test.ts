// A reply's file as an MMS through the fake's Messages route: `MediaUrl` is the service's signed
// URL of the file, the caption the Body (https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource).
import type { OutboundFile } from "@agentsvc/adapter-kit";
import { type StartedGateway, startGatewayAlone } from "@agentsvc/testkit/session";
import { afterEach, expect, it } from "vitest";
import type { TwilioGateway } from "../src/index.js";
import { type TwilioWorld, twilioWorld } from "./harness.js";

const user = "+15550001234";
const opts = { idempotencyKey: "piece-1", attempt: 1 };
let world: TwilioWorld;
let gateway: TwilioGateway;
let started: StartedGateway | undefined;

afterEach(async () => {
  await started?.stop();
  await world?.close();
});

async function boot(): Promise<void> {
  world = await twilioWorld();
  gateway = world.build();
  started = await startGatewayAlone(gateway);
}

function file(extra: Partial<OutboundFile> = {}): OutboundFile {
  const bytes = Buffer.from("89504e470d0a1a0a", "hex");
  return {
    blob: "0".repeat(64),
    name: "chart.png",
    contentType: "image/png",
    size: 1234,
    bytes: async () => bytes,
    ...extra,
  };
}

it("sends the file as an MMS whose MediaUrl is the service's signed URL, the caption as the Body", async () => {
  await boot();
  const url = "https://agent.example/files/abc?exp=1&sig=x";
  await gateway.sendFile(user, file({ url, caption: "Your chart" }), opts);
  expect(world.fake.sent.at(-1)).toMatchObject({ to: user, body: "Your chart", mediaUrls: [url] });
});

it("sends an uncaptioned file with an empty Body (MediaUrl alone is a message)", async () => {
  await boot();
  await gateway.sendFile(user, file({ url: "https://agent.example/files/def" }), opts);
  expect(world.fake.sent.at(-1)).toMatchObject({ body: "", mediaUrls: ["https://agent.example/files/def"] });
});

it("without a signed URL sends a text note naming the file instead", async () => {
  await boot();
  await gateway.sendFile(user, file(), opts);
  const sent = world.fake.sent.at(-1);
  expect(sent?.mediaUrls).toBeUndefined();
  expect(sent?.body).toContain("chart.png");
});
