// The chat page's compressed copies are saved beside the built page, and a restart with the same
// page serves the saved ones instead of compressing again (#45); a saved copy that does not decode
// to the page being served is never sent.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync, gzipSync } from "node:zlib";
import type { Project } from "@agentsvc/config-schema";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/index.js";
import { helloProject } from "./hello-server.js";

const PAGE = "/chat/index.html";
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.shutdown();
  server = undefined;
});

const start = async (project: Project) => {
  server = await startServer(project, { port: 0, logger: pino({ level: "silent" }) });
  return server;
};

function rawGet(url: string, accept: string): Promise<{ coding: unknown; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${PAGE}`, { headers: { "accept-encoding": accept } }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (part: Buffer) => parts.push(part));
      res.on("end", () => resolve({ coding: res.headers["content-encoding"], body: Buffer.concat(parts) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

const quickBrotli = (text: string) =>
  brotliCompressSync(text, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } });

describe("the chat page's saved compressed copies", () => {
  it("are written beside the page, and a restart with the same page sends them byte for byte", async () => {
    const project = await helloProject();
    const file = join(project.root, ".agentsvc/build/chat/index.html");
    const first = await start(project);
    // Answered once the copies exist (and are saved).
    await rawGet(first.url, "br");
    await first.shutdown();
    const html = readFileSync(file, "utf8");
    expect(brotliDecompressSync(readFileSync(`${file}.br`)).toString("utf8")).toBe(html);
    expect(gunzipSync(readFileSync(`${file}.gz`)).toString("utf8")).toBe(html);

    // Other bytes for the same page: only a start that reads the saved copies can send these.
    const brBytes = quickBrotli(html);
    const gzBytes = gzipSync(html, { level: 1 });
    writeFileSync(`${file}.br`, brBytes);
    writeFileSync(`${file}.gz`, gzBytes);
    const again = await start(project);
    const br = await rawGet(again.url, "br");
    expect(br.coding).toBe("br");
    expect(br.body.equals(brBytes)).toBe(true);
    const gz = await rawGet(again.url, "gzip");
    expect(gz.coding).toBe("gzip");
    expect(gz.body.equals(gzBytes)).toBe(true);
  });

  it("are made again when a saved one decodes to another page, is cut short or is missing", async () => {
    const project = await helloProject();
    const file = join(project.root, ".agentsvc/build/chat/index.html");
    const first = await start(project);
    await rawGet(first.url, "br");
    await first.shutdown();
    const html = readFileSync(file, "utf8");

    const cases: [string, () => void][] = [
      // As long as this page, so only comparing the decoded bytes tells them apart.
      ["another page", () => writeFileSync(`${file}.br`, quickBrotli(html.replace("</html>", "</HTML>")))],
      ["a longer page", () => writeFileSync(`${file}.br`, quickBrotli(`${html}<!-- older -->`))],
      ["cut short", () => writeFileSync(`${file}.gz`, gzipSync(html).subarray(0, 100))],
      ["missing", () => writeFileSync(`${file}.br`, "")],
    ];
    for (const [what, spoil] of cases) {
      spoil();
      const again = await start(project);
      const br = await rawGet(again.url, "br");
      const gz = await rawGet(again.url, "gzip");
      expect(brotliDecompressSync(br.body).toString("utf8"), what).toBe(html);
      expect(gunzipSync(gz.body).toString("utf8"), what).toBe(html);
      await again.shutdown();
      server = undefined;
      // Saved anew for the next start.
      expect(brotliDecompressSync(readFileSync(`${file}.br`)).toString("utf8"), what).toBe(html);
      expect(existsSync(`${file}.gz`), what).toBe(true);
    }
  });

  it("are not made at start: a start asked only for the plain page compresses nothing", async () => {
    const project = await helloProject();
    const file = join(project.root, ".agentsvc/build/chat/index.html");
    const started = await start(project);
    const plain = await rawGet(started.url, "identity");
    expect(plain.coding).toBeUndefined();
    // Shutdown waits for copies being made, so copies begun at start would be saved by now.
    await started.shutdown();
    expect(existsSync(file)).toBe(true);
    expect(existsSync(`${file}.br`)).toBe(false);
    expect(existsSync(`${file}.gz`)).toBe(false);
  });
});
