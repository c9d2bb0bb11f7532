// Memory, runs and approvals are keyed by user id alone, so two entries whose runs get one user id
// read and continue each other's conversations: the loader refuses such pairs, naming both entries.
import { describe, expect, it } from "vitest";
import { formatIssue } from "../src/index.js";
import { expectError, loadErrors, loadOk } from "./helpers.js";

const HTTP = "type: http\nsecretEnvVar: HOOKS_SECRET\n";
const page = (path: string, db: string, username: string) =>
  `exposes: webui\npath: ${path}\ndatabase:\n  path: ${db}\nusers:\n  - username: ${username}\n    passwordEnvVar: PW\n`;

describe("entries sharing a memory user", () => {
  it("refuses an http channel named anonymous (the agent route's callers), naming the route", async () => {
    const errors = await loadErrors({
      "gateways/api.yaml": "exposes: agent\npath: /agent\n",
      "gateways/anonymous.yaml": HTTP,
    });
    const e = expectError(
      errors,
      "gateways/anonymous.yaml",
      "",
      /user id of the agent route's callers \(gateways\/api.yaml\)/,
    );
    expect(formatIssue(e)).toMatch(/each other's conversations.*rename the file/);
  });

  it("refuses a cli channel named anonymous without an agent route too (one added later would share it)", async () => {
    const errors = await loadErrors({ "gateways/anonymous.yaml": "type: cli\n" });
    expectError(errors, "gateways/anonymous.yaml", "", /user id of the agent route's callers:/);
  });

  it("refuses a channel named like a push gateway's type, naming that gateway's file", async () => {
    const errors = await loadErrors({
      "gateways/github.yaml": HTTP,
      "gateways/code.yaml":
        "type: github\ntokenEnvVar: GH_TOKEN\nwebhookSecretEnvVar: GH_SECRET\nbotNameEnvVar: GH_BOT\n",
    });
    expectError(errors, "gateways/github.yaml", "", /user id of the github gateway \(gateways\/code.yaml\)/);
  });

  it("refuses two pages whose accounts share a username, naming the first", async () => {
    const errors = await loadErrors({
      "gateways/a.yaml": page("/a", "./data/a.db", "ada"),
      "gateways/b.yaml": page("/b", "./data/b.db", "ada"),
    });
    expectError(
      errors,
      "gateways/b.yaml",
      "users[0].username",
      /is also an account of gateways\/a.yaml \(users\[0\]\).*share conversations, runs and approvals/,
    );
    expect(errors.some((e) => e.file === "gateways/a.yaml")).toBe(false);
  });

  it("accepts channels, a route and pages whose user ids all differ", async () => {
    const p = await loadOk({
      "gateways/api.yaml": "exposes: agent\npath: /agent\n",
      "gateways/hooks.yaml": HTTP,
      "gateways/a.yaml": page("/a", "./data/a.db", "ada"),
      "gateways/b.yaml": page("/b", "./data/b.db", "grace"),
    });
    expect(p.channels.map((c) => c.entryName)).toEqual(["hooks"]);
    expect(p.exposures).toHaveLength(3);
  });
});
