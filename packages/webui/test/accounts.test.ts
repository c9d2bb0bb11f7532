import type { WebuiExposure } from "@agentsvc/config-schema";
import { afterEach, describe, expect, it } from "vitest";
import { type ChatUiEntry, apiPrefix } from "../src/index.js";
import { type Harness, startHarness } from "./harness.js";

// Account rows of spec §3, driven by the boot-time seeder and observed through the HTTP API.
const alice = { username: "alice", displayName: "Alice", passwordEnvVar: "PA" };
const bob = { username: "bob", displayName: "Bob", passwordEnvVar: "PB" };

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function captureLogger() {
  const warnings: { obj: object; msg: string }[] = [];
  return { warnings, logger: { warn: (obj: object, msg: string) => warnings.push({ obj, msg }), info() {} } };
}

describe("account lifecycle through sign-in", () => {
  it("an account added to config can sign in after boot (absent -> active)", async () => {
    h = await startHarness({ users: [alice], env: { PA: "pa" } });
    expect((await h.client().login("alice", "pa")).status).toBe(200);
    expect((await h.client().login("bob", "pb")).status).toBe(401);
  });

  it("a password changed in config takes effect at the next boot: the old one is refused, the new one accepted", async () => {
    h = await startHarness({ users: [alice], env: { PA: "old-pass" } });
    await h.db.seedAccounts([alice], { PA: "new-pass" }, captureLogger().logger, { iterations: 1000 });
    expect((await h.client().login("alice", "old-pass")).status).toBe(401);
    expect((await h.client().login("alice", "new-pass")).status).toBe(200);
  });

  it("an account removed and later restored gets its conversations and preferences back", async () => {
    h = await startHarness({ users: [alice, bob], env: { PA: "pa", PB: "pb" } });
    const b = h.client();
    await b.login("bob", "pb");
    await b.post("/invoke", { input: "bob's notes", conversationId: "bob-1" });
    await b.post("/preferences/set", { key: "theme", value: "dark" });
    await h.db.seedAccounts([alice], { PA: "pa" }, captureLogger().logger, { iterations: 1000 });
    expect((await h.client().login("bob", "pb")).status).toBe(401);
    await h.db.seedAccounts([alice, bob], { PA: "pa", PB: "pb" }, captureLogger().logger, {
      iterations: 1000,
    });
    const again = h.client();
    expect((await again.login("bob", "pb")).status).toBe(200);
    expect(
      (await again.get("/conversations")).body.conversations.map(
        (c: { conversationId: string }) => c.conversationId,
      ),
    ).toEqual(["bob-1"]);
    expect((await again.get("/preferences")).body.preferences).toEqual({ theme: "dark" });
    expect((await again.get("/history?conversationId=bob-1")).body.messages[0]).toEqual({
      role: "user",
      content: "bob's notes",
    });
  });

  it("an account whose passwordEnvVar is unset is skipped with a warning and cannot sign in", async () => {
    h = await startHarness({ users: [alice], env: { PA: "pa" } });
    const { warnings, logger } = captureLogger();
    await h.db.seedAccounts([alice, bob], { PA: "pa" }, logger, { iterations: 1000 });
    expect(warnings.some((w) => JSON.stringify(w).includes("PB"))).toBe(true);
    const r = await h.client().login("bob", "anything");
    expect(r.status).toBe(401);
  });
});

describe("entry", () => {
  it("accepts the config-schema webui exposure as its entry and mounts under <path>/api", () => {
    const exposure = {
      exposes: "webui",
      path: "/chat/",
      entryName: "web",
      file: "gateways/web.yaml",
    } as WebuiExposure;
    const entry: ChatUiEntry = exposure;
    expect(apiPrefix(entry.path)).toBe("/chat/api");
    expect(apiPrefix("/")).toBe("/api");
    expect(apiPrefix("team//chat")).toBe("/team/chat/api");
  });
});
