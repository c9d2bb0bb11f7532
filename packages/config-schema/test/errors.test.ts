import { describe, expect, it } from "vitest";
import { formatIssue, loadProject } from "../src/index.js";
import { loadErrors } from "./helpers.js";

describe("error reporting", () => {
  it("returns every error of a project, not just the first, each naming file and key", async () => {
    const errors = await loadErrors({
      "agents/bot.ts": `export default { kind: "agent", name: "bot", model: { provider: "demo" }, gatewaySession: { policy: "nope" } };\n`,
      "gateways/web.yaml": "exposes: webui\npath: /chat\ndatabase:\n  path: /abs.db\ntheme:\n  accnt: fff\n",
      "gateways/hook.yaml": "type: http\n",
      "gateways/wa.yaml": "type: whatsapp-web\n",
      "gateways/mail.yaml": "type: email\nimapHostEnvVar: IMAP_HOST\n",
    });
    const lines = errors.map(formatIssue);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^agents\/bot\.ts: gatewaySession\.policy: /),
        expect.stringMatching(/^gateways\/web\.yaml: database\.path: /),
        expect.stringMatching(/^gateways\/web\.yaml: theme\.accnt: /),
        expect.stringMatching(/^gateways\/hook\.yaml: secretEnvVar: /),
        expect.stringMatching(/^gateways\/wa\.yaml: type: unknown type/),
        expect.stringMatching(/^gateways\/mail\.yaml: imapUsernameEnvVar: /),
        expect.stringMatching(/^gateways\/mail\.yaml: imapPasswordEnvVar: /),
        expect.stringMatching(/^gateways\/mail\.yaml: fromAddressEnvVar: /),
      ]),
    );
    expect(errors).toHaveLength(8);
    for (const e of errors) expect(e.expected).toBeTruthy();
  });

  it("formats issues as file: path: message, leaving out an empty path", () => {
    expect(formatIssue({ file: "gateways/a.yaml", path: "path", message: "is required" })).toBe(
      "gateways/a.yaml: path: is required",
    );
    expect(formatIssue({ file: "agents/", message: "must hold at least one agent module" })).toBe(
      "agents/: must hold at least one agent module",
    );
  });

  it("reports a missing project folder instead of throwing", async () => {
    const r = await loadProject("/nonexistent/agentsvc-project");
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(formatIssue(r.errors[0]!)).toBe(
      "/nonexistent/agentsvc-project: must be a project folder (got no such folder)",
    );
  });

  it("reports an empty gateway file and a list where a mapping belongs", async () => {
    const errors = await loadErrors({
      "gateways/empty.yaml": "",
      "gateways/list.yaml": "- exposes: agent\n",
    });
    expect(errors.map(formatIssue).sort()).toEqual([
      "gateways/empty.yaml: must be a mapping with an exposes key or a type key (got null)",
      "gateways/list.yaml: must be a mapping with an exposes key or a type key (got a list of 1)",
    ]);
  });
});
