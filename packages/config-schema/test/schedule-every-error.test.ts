import { describe, expect, it } from "vitest";
import { type BuildError, formatIssue, loadProject } from "../src/index.js";
import { expectError, installToyScheduleAdapter, linkPackages, loadErrors, writeProject } from "./helpers.js";

const at = (errors: BuildError[], file: string, path: string) =>
  errors.filter((e) => e.file === file && e.path === path).map(formatIssue);

describe("schedules naming an entry with errors, and schedules with several mistakes", () => {
  it("a push target whose entry has errors: names that file, does not call it undeclared", async () => {
    const errors = await loadErrors({
      "gateways/tg.yaml": "type: telegram\n",
      "schedules/by-name.yaml": "every: 1h\nprompt: p\nto: { gateway: tg, thread: 1 }\n",
      "schedules/by-type.yaml": "every: 1h\nprompt: p\nto: { gateway: telegram, thread: 1 }\n",
    });
    expectError(errors, "gateways/tg.yaml", "botTokenEnvVar", /is required/);
    for (const file of ["schedules/by-name.yaml", "schedules/by-type.yaml"])
      expect(at(errors, file, "to.gateway")).toEqual([
        expect.stringMatching(/to\.gateway: names gateways\/tg\.yaml, which has errors of its own/),
      ]);
    expect(errors.map(formatIssue).join("\n")).not.toContain("declared: none");
  });

  it("a chat page target whose entry has errors: names that file, does not call it undeclared", async () => {
    const errors = await loadErrors({
      "gateways/web.yaml": "exposes: webui\npath: chat\n",
      "schedules/page.yaml": "every: 1h\nprompt: p\nto: { page: web }\n",
    });
    expectError(errors, "gateways/web.yaml", "path", /./);
    expectError(
      errors,
      "schedules/page.yaml",
      "to.page",
      /names gateways\/web\.yaml, which has errors of its own/,
    );
    expect(errors.map(formatIssue).join("\n")).not.toContain("declared: none");
  });

  it("reports a missing cron/every, an unknown gateway and an unknown agent of one schedule together", async () => {
    const errors = await loadErrors({
      "schedules/s.yaml": "prompt: p\nagent: ghost\nto: { gateway: nope, thread: 1 }\n",
    });
    expectError(errors, "schedules/s.yaml", "", /must have cron .* or every/);
    expectError(errors, "schedules/s.yaml", "to.gateway", /declared: none\) \(got "nope"\)/);
    expectError(errors, "schedules/s.yaml", "agent", /must name an agent file under agents\/ \(found: bot\)/);
  });

  it("a schedule with a bad cron and a bad enabled still has its gateway and agent checked", async () => {
    const errors = await loadErrors({
      "schedules/s.yaml":
        "cron: '61 * * * *'\nprompt: p\nagent: ghost\nenabled: sometimes\nto: { gateway: nope, thread: 1 }\n",
    });
    expectError(errors, "schedules/s.yaml", "cron", /5 or 6 fields/);
    expectError(errors, "schedules/s.yaml", "enabled", /true or false/);
    expectError(errors, "schedules/s.yaml", "to.gateway", /declared: none\) \(got "nope"\)/);
    expectError(errors, "schedules/s.yaml", "agent", /must name an agent file under agents\/ \(found: bot\)/);
    expect(errors).toHaveLength(4);
  });

  it("a chat page target with two gateway keys beside it reports both and still checks the page", async () => {
    const errors = await loadErrors({
      "schedules/s.yaml": "every: 1h\nprompt: p\nto: { page: nowhere, gateway: tg, thread: 1 }\n",
    });
    expectError(errors, "schedules/s.yaml", "to.gateway", /is for push gateway targets/);
    expectError(errors, "schedules/s.yaml", "to.thread", /is for push gateway targets/);
    expectError(errors, "schedules/s.yaml", "to.page", /declared: none\) \(got "nowhere"\)/);
    expect(errors).toHaveLength(3);
  });

  it("a schedule naming an agent file with errors is not told the agent is missing", async () => {
    const errors = await loadErrors({
      "agents/helper.ts": `export default { kind: "agent", name: "helper" };\n`,
      "agentsvc.config.yaml": "rootAgent: bot\n",
      "schedules/page.yaml": "every: 1h\nprompt: p\nagent: helper\nto: { page: web }\n",
      "gateways/web.yaml": "exposes: webui\npath: /chat\n",
    });
    expectError(errors, "agents/helper.ts", "model", /./);
    expect(at(errors, "schedules/page.yaml", "agent")).toEqual([]);
  });

  it("reports every key of another platform on a schedule's target, not only the first", async () => {
    const errors = await loadErrors({
      "gateways/tg.yaml": "type: telegram\nbotTokenEnvVar: TG\n",
      "schedules/s.yaml":
        "every: 1h\nprompt: p\nto: { gateway: tg, thread: 1, subject: Hi, templateName: weekly }\n",
    });
    expectError(errors, "schedules/s.yaml", "to.subject", /is for email targets only/);
    expectError(errors, "schedules/s.yaml", "to.templateName", /is for whatsapp targets only/);
  });

  it("checks the target adapter's own keys beside a key of another platform", async () => {
    const errors = await loadErrors({
      "gateways/wa.yaml":
        "type: whatsapp\nphoneNumberIdEnvVar: WP\naccessTokenEnvVar: WA\nappSecretEnvVar: WS\nverifyTokenEnvVar: WV\n",
      "schedules/s.yaml":
        "every: 1h\nprompt: p\nto: { gateway: wa, thread: 1, subject: Hi, templateName: weekly }\n",
      "schedules/t.yaml":
        "every: 1h\nprompt: p\nto: { gateway: wa, thread: 1, subject: Hi, templateName: '' }\n",
    });
    expectError(errors, "schedules/s.yaml", "to.subject", /is for email targets only/);
    expectError(
      errors,
      "schedules/s.yaml",
      "to.templateLanguage",
      /templateName and templateLanguage go together/,
    );
    expectError(errors, "schedules/t.yaml", "to.subject", /is for email targets only/);
    expectError(errors, "schedules/t.yaml", "to.templateName", /must not be empty/);
    expect(errors).toHaveLength(4);
  });

  it("a push target whose entry has errors still has its platform keys checked by the entry's adapter", async () => {
    const errors = await loadErrors({
      "gateways/mail.yaml": "type: email\n",
      "schedules/s.yaml":
        "every: 1h\nprompt: p\nto: { gateway: mail, thread: a@b.c, subject: 5, templateName: weekly }\n",
    });
    expectError(errors, "schedules/s.yaml", "to.gateway", /names gateways\/mail\.yaml, which has errors/);
    expectError(errors, "schedules/s.yaml", "to.subject", /must be a string \(the subject/);
    expectError(
      errors,
      "schedules/s.yaml",
      "to.templateName",
      /is for whatsapp targets only \(this schedule sends to email\)/,
    );
    expect(errors.filter((e) => e.file === "schedules/s.yaml")).toHaveLength(3);
  });

  it("a push target whose entry's type is unknown leaves its platform keys unchecked", async () => {
    const errors = await loadErrors({
      "gateways/line.yaml": "type: '@acme/agentsvc-gateway-line'\n",
      "schedules/t.yaml": "every: 1h\nprompt: p\nto: { gateway: line, thread: 1, subject: 5 }\n",
    });
    expectError(errors, "gateways/line.yaml", "type", /unknown type/);
    expect(at(errors, "schedules/t.yaml", "to.gateway")).toEqual([
      expect.stringMatching(/names gateways\/line\.yaml, which has errors of its own/),
    ]);
    expect(errors.filter((e) => e.file === "schedules/t.yaml")).toHaveLength(1);
  });

  it("a third-party entry with errors, named by its adapter's type, has its keys checked by that adapter", async () => {
    const dir = writeProject({
      "gateways/chat.yaml": "type: agentsvc-gateway-toy\nbogus: 1\n",
      "schedules/s.yaml": "every: 1h\nprompt: p\nto: { gateway: toy, thread: t1, priority: low }\n",
    });
    installToyScheduleAdapter(dir);
    const r = await loadProject(dir);
    const errors = r.ok ? [] : r.errors;
    expectError(errors, "gateways/chat.yaml", "bogus", /./);
    expectError(errors, "schedules/s.yaml", "to.gateway", /names gateways\/chat\.yaml, which has errors/);
    expectError(errors, "schedules/s.yaml", "to.priority", /must be high/);
    expect(errors.filter((e) => e.file === "schedules/s.yaml")).toHaveLength(2);
  });

  it("a built-in entry whose package is not installed has other platforms' keys reported, with or without errors", async () => {
    // E-mail's package is not installed, WhatsApp's is: templateName is WhatsApp's key either way.
    const dir = writeProject(
      {
        "gateways/mail.yaml": "type: email\n",
        "gateways/smtp.yaml": "type: email\napprovers: nobody\n",
        "schedules/valid.yaml":
          "every: 1h\nprompt: p\nto: { gateway: mail, thread: a@b.c, templateName: w }\n",
        "schedules/broken.yaml":
          "every: 1h\nprompt: p\nto: { gateway: smtp, thread: a@b.c, templateName: w }\n",
      },
      { adapters: false },
    );
    linkPackages(dir, { "@agentsvc/gateway-whatsapp": "packages/gateway-whatsapp" });
    const r = await loadProject(dir);
    const errors = r.ok ? [] : r.errors;
    expectError(errors, "gateways/smtp.yaml", "approvers", /must be a list of platform user ids/);
    expectError(
      errors,
      "schedules/broken.yaml",
      "to.gateway",
      /names gateways\/smtp\.yaml, which has errors/,
    );
    for (const file of ["schedules/valid.yaml", "schedules/broken.yaml"])
      expect(at(errors, file, "to.templateName")).toEqual([
        expect.stringMatching(/is for whatsapp targets only \(this schedule sends to email\)/),
      ]);
    expect(errors.filter((e) => e.file === "schedules/broken.yaml")).toHaveLength(2);
  });
});
