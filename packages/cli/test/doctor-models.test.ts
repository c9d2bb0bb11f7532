// `agentsvc doctor` proves model keys by listing models, never by a generation. The two providers
// are stood in for on 127.0.0.1 by what their docs say the list call answers:
//   OpenAI: GET /v1/models with a bearer key; 401 { error: { message: "Incorrect API key provided: ...",
//     type: "invalid_request_error", code: "invalid_api_key" } } (platform.openai.com/docs/api-reference/models/list)
//   Anthropic: GET /v1/models with x-api-key and anthropic-version; 401 { type: "error", error:
//     { type: "authentication_error", message: "invalid x-api-key" } } (docs.anthropic.com/en/api/models-list, /en/api/errors)
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run, tempDir, writeFiles } from "./helpers.js";

let server: Server;
let base: string;
const calls: { method: string; path: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    calls.push({ method: req.method ?? "", path: req.url ?? "" });
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (req.method === "GET" && req.url === "/openai/v1/models") {
      if (req.headers.authorization !== "Bearer sk-good")
        return json(401, {
          error: {
            message: "Incorrect API key provided: sk-old.",
            type: "invalid_request_error",
            code: "invalid_api_key",
          },
        });
      return json(200, {
        object: "list",
        data: [{ id: "gpt-4o-mini", object: "model", owned_by: "system" }],
      });
    }
    if (req.method === "GET" && req.url === "/anthropic/v1/models") {
      if (!req.headers["anthropic-version"])
        return json(400, {
          type: "error",
          error: { type: "invalid_request_error", message: "anthropic-version: header is required" },
        });
      if (req.headers["x-api-key"] !== "sk-ant-good")
        return json(401, {
          type: "error",
          error: { type: "authentication_error", message: "invalid x-api-key" },
        });
      return json(200, {
        data: [
          { type: "model", id: "claude-sonnet-4-5" },
          { type: "model", id: "claude-haiku-4-5" },
        ],
        has_more: false,
      });
    }
    json(404, { error: { message: "not found" } });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((ok) => server.close(() => ok()));
});

interface Report {
  ok: boolean;
  checks: { check: string; status: string; detail: string; fix?: string }[];
}

describe("agentsvc doctor: model keys", () => {
  it("lists models with each key (no generation), and names the variable to fix when one is refused", async () => {
    const dir = tempDir("agentsvc-doctor-models-");
    writeFiles(dir, {
      "agents/a.ts": `export default { kind: "agent", name: "a", model: { provider: "openai", model: "gpt-4o-mini", baseURL: "${base}/openai/v1" } };\n`,
      "agents/b.ts": `export default { kind: "agent", name: "b", model: { provider: "anthropic", model: "claude-sonnet-4-5", apiKeyEnvVar: "CLAUDE_KEY", baseURL: "${base}/anthropic/v1" } };\n`,
      "agentsvc.config.yaml": "rootAgent: a\n",
    });
    const good = await run(["doctor", dir, "--json"], {
      env: { OPENAI_API_KEY: "sk-good", CLAUDE_KEY: "sk-ant-good" },
    });
    const report = JSON.parse(good.stdout) as Report;
    expect(report.checks).toEqual([
      { check: "openai key OPENAI_API_KEY (models list)", status: "ok", detail: "1 models listed" },
      { check: "anthropic key CLAUDE_KEY (models list)", status: "ok", detail: "2 models listed" },
    ]);
    expect(good.code).toBe(0);
    // Only list calls: nothing that costs a generation.
    expect(calls.every((c) => c.method === "GET" && c.path.endsWith("/models"))).toBe(true);

    const bad = await run(["doctor", dir], {
      env: { OPENAI_API_KEY: "sk-old", CLAUDE_KEY: "sk-ant-revoked" },
    });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(
      /FAILED\s+openai key OPENAI_API_KEY \(models list\)\s+401 Incorrect API key provided/,
    );
    expect(bad.stdout).toMatch(
      /fix: OPENAI_API_KEY was refused by openai: put a current API key in it \(agents\/a\.ts/,
    );
    expect(bad.stdout).toMatch(/FAILED\s+anthropic key CLAUDE_KEY \(models list\)\s+401 invalid x-api-key/);
    expect(bad.stdout).toContain("2 of 2 checks failed");
  });

  it('checks the key of a "provider/model" model too', async () => {
    const dir = tempDir("agentsvc-doctor-models-");
    writeFiles(dir, {
      "agents/a.ts": `export default { kind: "agent", name: "a", model: { model: "openai/gpt-4o-mini", baseURL: "${base}/openai/v1" } };\n`,
    });
    const r = await run(["doctor", dir, "--json"], { env: { OPENAI_API_KEY: "sk-good" } });
    expect((JSON.parse(r.stdout) as Report).checks).toEqual([
      { check: "openai key OPENAI_API_KEY (models list)", status: "ok", detail: "1 models listed" },
    ]);
    expect(r.code).toBe(0);
  });
});
