// A reply's file through the fake signal-cli daemon: JSON-RPC `send` with the file as an RFC 2397
// data URI in `attachments` (`data:<MIME-TYPE>;filename=<FILENAME>;base64,...`, signal-cli(1) send
// `--attachment`, https://github.com/AsamK/signal-cli/blob/master/man/signal-cli.1.adoc; a
// multi-value option as a JSON array, signal-cli-jsonrpc(5)), the caption as the message text.
import type { OutboundFile } from "@agentsvc/adapter-kit";
import { eventually, type FakeSignalDaemon, startSignalDaemon } from "@agentsvc/testkit";
import { type StartedGateway, startGatewayAlone } from "@agentsvc/testkit/session";
import { afterEach, expect, it } from "vitest";
import { SignalGateway } from "../src/index.js";
import { ACCOUNT } from "./harness.js";

let daemon: FakeSignalDaemon | undefined;
let alone: StartedGateway | undefined;

afterEach(async () => {
  await alone?.stop();
  await daemon?.close();
  alone = undefined;
  daemon = undefined;
});

const TO = "+15550001111";
const opts = { idempotencyKey: "in1:file0", attempt: 1 };
const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(3000, 7)]);

async function boot(): Promise<{ d: FakeSignalDaemon; g: SignalGateway }> {
  daemon = await startSignalDaemon({ accounts: [ACCOUNT] });
  const gateway = new SignalGateway({ accountEnvVar: "SIGNAL_ACCOUNT", httpUrl: daemon.url });
  alone = await startGatewayAlone(gateway, { env: { SIGNAL_ACCOUNT: ACCOUNT } });
  await eventually(() => daemon?.openStreams === 1, "the events stream");
  return { d: daemon, g: gateway };
}

function file(name: string, contentType: string, bytes: Buffer, caption?: string): OutboundFile {
  return {
    blob: "0".repeat(64),
    name,
    contentType,
    size: bytes.length,
    bytes: async () => bytes,
    ...(caption ? { caption } : {}),
  };
}

it("sends a picture as one message whose attachment keeps its bytes, type and name, the caption as its text", async () => {
  const { d, g } = await boot();
  const result = await g.sendFile(TO, file("chart.png", "image/png", PNG, "Your chart"), opts);
  expect(d.sent).toHaveLength(1);
  const [sent] = d.sent;
  expect(sent).toMatchObject({ recipient: TO, message: "Your chart", account: ACCOUNT });
  expect(sent?.attachments).toHaveLength(1);
  expect(sent?.attachments?.[0]).toMatchObject({ contentType: "image/png", filename: "chart.png" });
  expect(sent?.attachments?.[0]?.bytes.equals(PNG)).toBe(true);
  expect(result).toEqual({ messageId: String(sent?.timestamp) });
});

it("keeps a file name with ; , = and spaces whole (percent-encoded, as signal-cli URL-decodes it)", async () => {
  const { d, g } = await boot();
  const pdf = Buffer.from("%PDF-1.7\nreport");
  await g.sendFile(TO, file("Q3 report; v=2, final.pdf", "application/pdf", pdf), opts);
  expect(d.sent[0]?.attachments?.[0]).toMatchObject({
    contentType: "application/pdf",
    filename: "Q3 report; v=2, final.pdf",
  });
  expect(d.sent[0]?.message).toBe("");
});

it("fails the piece for a retry when the send reached nobody (a rate limit), like a text", async () => {
  const { d, g } = await boot();
  d.failures.push({ kind: "result", result: { timestamp: 5, results: [{ type: "RATE_LIMIT_FAILURE" }] } });
  await expect(g.sendFile(TO, file("a.png", "image/png", PNG), opts)).rejects.toMatchObject({
    permanent: false,
  });
  await g.sendFile(TO, file("a.png", "image/png", PNG), { ...opts, attempt: 2 });
  expect(d.sent).toHaveLength(1);
});
