// The WhatsApp fake's own status webhooks (a text sent outside the 24-hour window fails by webhook,
// 131047) behave like Meta's retries: one that cannot be delivered yet (the service started on port
// 0 before the test knew its URL) arrives once the URL is set; one still undelivered when the fake
// closes answers status 0. Neither rejects: an unhandled rejection from a fake fails a whole run.
import { afterEach, describe, expect, it } from "vitest";
import { FakeWhatsApp, listenLocal } from "../src/index.js";

const options = { appSecret: "app-secret", accessToken: "tok", phoneNumberId: "1065" };
const USER = "15550004242";
let fake: FakeWhatsApp;
afterEach(() => fake.close());

async function sendText(): Promise<string> {
  const res = await fetch(`${fake.url}/v21.0/${options.phoneNumberId}/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${options.accessToken}`, "content-type": "application/json" },
    body: JSON.stringify({ messaging_product: "whatsapp", to: USER, type: "text", text: { body: "hi" } }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: { id: string }[] }).messages[0]?.id as string;
}

describe("whatsapp fake status webhooks", () => {
  it("a failed status for a text sent before the webhook URL is set is delivered once it is set", async () => {
    fake = await FakeWhatsApp.start(options);
    fake.windowClosed.add(USER);
    const id = await sendText();
    const bodies: string[] = [];
    const receiver = await listenLocal((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString("utf8");
      });
      req.on("end", () => {
        bodies.push(body);
        res.end("ok");
      });
    });
    try {
      await new Promise((r) => setTimeout(r, 100));
      fake.webhookUrl = `${receiver.url}/webhooks/whatsapp`;
      const answers = await Promise.all(fake.statusDeliveries);
      expect(answers.map((a) => a.status)).toEqual([200]);
      const delivered = JSON.parse(bodies[0] as string) as {
        entry: { changes: { value: { statuses: unknown[] } }[] }[];
      };
      expect(delivered.entry[0]?.changes[0]?.value.statuses).toEqual([
        expect.objectContaining({
          id,
          status: "failed",
          errors: [expect.objectContaining({ code: 131047 })],
        }),
      ]);
    } finally {
      await receiver.close();
    }
  });

  it("a failed status nobody listens for answers status 0 when the fake closes, without rejecting", async () => {
    fake = await FakeWhatsApp.start(options);
    const gone = await listenLocal((_req, res) => res.end());
    await gone.close();
    fake.webhookUrl = `${gone.url}/webhooks/whatsapp`;
    fake.windowClosed.add(USER);
    await sendText();
    await fake.close();
    expect((await Promise.all(fake.statusDeliveries)).map((a) => a.status)).toEqual([0]);
  });
});
