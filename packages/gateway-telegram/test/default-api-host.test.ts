// Without apiBaseUrl the gateway talks to Telegram's own host (https://core.telegram.org/bots/api#making-requests:
// "https://api.telegram.org/bot<token>/METHOD_NAME") and downloads a user's file from there
// (https://core.telegram.org/bots/api#getfile: "https://api.telegram.org/file/bot<token>/<file_path>").
// Calls to that host are routed to the Telegram fake (Bot API calls go through the kit's transport,
// the file's download through fetch), so what the gateway asked for can be read.
import { httpTransport } from "@agentsvc/adapter-kit";
import { eventually } from "@agentsvc/testkit";
import { memoryBlobs } from "@agentsvc/testkit/session";
import { afterEach, expect, it, vi } from "vitest";
import { createRig, type TelegramRig } from "./rig.js";

const HOST = "https://api.telegram.org";
let rig: TelegramRig | undefined;

afterEach(async () => {
  await rig?.stop();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

it("calls api.telegram.org when no apiBaseUrl is set, and takes a user's file from that host", async () => {
  const asked: string[] = [];
  const realFetch = globalThis.fetch;
  rig = await createRig({
    apiBaseUrl: undefined,
    media: { types: ["document"], maxBytes: 1_000_000 },
  });
  const fakeUrl = rig.fake.url;
  const routed = (url: string) => {
    asked.push(url);
    return url.startsWith(HOST) ? fakeUrl + url.slice(HOST.length) : url;
  };
  vi.stubGlobal("fetch", (input: string | URL | Request, init?: RequestInit) =>
    realFetch(routed(String(input instanceof Request ? input.url : input)), init),
  );
  const request = httpTransport.request.bind(httpTransport);
  vi.spyOn(httpTransport, "request").mockImplementation((input, o) => request(routed(String(input)), o));
  const blobs = memoryBlobs();
  await rig.start({ ...rig.rec.context, blobs });
  const pdf = Buffer.from("%PDF-1.7\nminutes");
  rig.fake.pushUpdate({
    message: {
      message_id: 1,
      from: { id: 42, is_bot: false, first_name: "Ada" },
      chat: { id: 42, type: "private" },
      date: Math.floor(Date.now() / 1000),
      document: {
        ...rig.fake.files.host(pdf, "pdf"),
        file_name: "minutes.pdf",
        mime_type: "application/pdf",
      },
    },
  });
  await eventually(() => rig?.rec.delivered.length === 1, "the document message");
  expect(rig.rec.delivered[0]?.attachments?.[0]).toMatchObject({ kind: "document", name: "minutes.pdf" });
  expect(asked.length).toBeGreaterThan(0);
  expect(asked.every((u) => u.startsWith(`${HOST}/`))).toBe(true);
  expect(asked.some((u) => u.startsWith(`${HOST}/file/bot`))).toBe(true);
});
