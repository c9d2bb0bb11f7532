// A schedule into a chat page user's conversation, through the built bin: `agentsvc hash-password`
// makes the account's `passwordHash`, a 6-field `cron` schedule names an agent other than the root
// agent (`agent: writer`) and `to: { page, user, conversation }`; its turns show in that account's
// conversation, an `every` schedule ticks on the root agent, and one with `enabled: false` never runs.
import { eventually } from "@agentsvc/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBinAsync, type Served, serveBin } from "./child.js";
import { tempDir, writeFiles } from "./helpers.js";

const agent = (name: string, text: string) =>
  `export default { kind: "agent", name: "${name}", model: { provider: "demo", script: [{ text: "${text}" }] } };\n`;

describe("agentsvc start: a schedule to a chat page user's conversation", () => {
  let served: Served;
  let dir: string;

  beforeAll(async () => {
    const hashed = await runBinAsync([
      "hash-password",
      "--password=digest-reader-pw",
      "--iterations",
      "1000",
    ]);
    expect(hashed.code, hashed.stderr).toBe(0);
    dir = writeFiles(tempDir("agentsvc-page-schedule-"), {
      // The root agent sorts first; the schedule names the other one.
      "agents/assistant.mjs": agent("assistant", "From the root agent."),
      "agents/writer.mjs": agent("writer", "A digest from the writer."),
      "gateways/web.yaml": [
        "exposes: webui",
        "path: /chat",
        "users:",
        "  - username: ada",
        `    passwordHash: "${hashed.stdout.trim()}"`,
        "",
      ].join("\n"),
      "agentsvc.config.yaml": "rootAgent: assistant\n",
      "schedules/digest.yaml":
        "cron: '*/2 * * * * *'\nprompt: Write the digest\nagent: writer\nto: { page: web, user: ada, conversation: digest }\n",
      "schedules/tenly.yaml":
        "every: 10s\nprompt: Every ten seconds\nto: { page: web, user: ada, conversation: every }\n",
      "schedules/off.yaml":
        "cron: '* * * * * *'\nprompt: Never sent\nenabled: false\nto: { page: web, user: ada, conversation: off }\n",
    });
    served = await serveBin(["start", dir, "--port", "0"]);
  }, 60_000);
  afterAll(async () => {
    await served?.stop();
  });

  it("signs in with the hashed password; the writer's scheduled turns show in ada's digest conversation, the every-10s schedule's on the root agent; the disabled schedule never runs", async () => {
    const api = `${served.url}/chat/api`;
    const login = (password: string) =>
      fetch(`${api}/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username: "ada", password }),
      });
    expect((await login("not-it")).status).toBe(401);
    const ok = await login("digest-reader-pw");
    expect(ok.status).toBe(200);
    const cookie = (ok.headers.get("set-cookie") ?? "").split(";")[0] as string;
    const history = async (conversationId: string) => {
      const res = await fetch(`${api}/history?conversationId=${conversationId}`, { headers: { cookie } });
      expect(res.status).toBe(200);
      return ((await res.json()) as { messages: { role: string; content: string }[] }).messages.map(
        (m) => `${m.role}: ${m.content}`,
      );
    };
    await eventually(
      async () => (await history("digest")).length >= 4,
      "two ticks in the conversation",
      30_000,
    );
    expect((await history("digest")).slice(0, 4)).toEqual([
      "user: Write the digest",
      "assistant: A digest from the writer.",
      "user: Write the digest",
      "assistant: A digest from the writer.",
    ]);
    // `every` (at least 10 s): its first tick, on the root agent (no `agent` named).
    await eventually(async () => (await history("every")).length >= 2, "the every-10s tick", 40_000);
    expect((await history("every")).slice(0, 2)).toEqual([
      "user: Every ten seconds",
      "assistant: From the root agent.",
    ]);
    // Ticks of the every-second disabled schedule would have come by now.
    expect(await history("off")).toEqual([]);
    const list = await runBinAsync(["schedules", "list", "--json", "--dir", dir]);
    expect(list.code, list.stderr).toBe(0);
    const rows = JSON.parse(list.stdout) as { name: string; state: string; lastOutcome: string | null }[];
    expect(rows.find((r) => r.name === "off")).toMatchObject({ state: "disabled", lastOutcome: null });
    expect(rows.find((r) => r.name === "digest")?.lastOutcome).toBe("delivered");
  }, 60_000);
});
