import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadProject } from "../src/index.js";
import { expectError, installToyScheduleAdapter, loadErrors, loadOk, writeProject } from "./helpers.js";

const TG = "type: telegram\nbotTokenEnvVar: TG\n";

describe("schedules/ entries", () => {
  it("reads a cron schedule with its defaults: UTC, the root agent, enabled, catchUp none, gateway by file name", async () => {
    const project = await loadOk({
      "gateways/tg.yaml": TG,
      "schedules/digest.yaml":
        "cron: '0 9 * * 1-5'\nprompt: Morning digest\nto: { gateway: tg, thread: -100123 }\n",
    });
    expect(project.schedules).toEqual([
      {
        name: "digest",
        file: "schedules/digest.yaml",
        cron: "0 9 * * 1-5",
        timezone: "UTC",
        prompt: "Morning digest",
        to: { gateway: "telegram", thread: "-100123" },
        enabled: true,
        catchUp: "none",
      },
    ]);
  });

  it("reads every as milliseconds, a timezone, catchUp last, enabled false and a named agent", async () => {
    const project = await loadOk({
      "gateways/tg.yaml": TG,
      "schedules/ping.json": JSON.stringify({
        every: "1h30m",
        timezone: "Europe/Berlin",
        prompt: "p",
        agent: "bot",
        to: { gateway: "telegram", thread: "42" },
        enabled: false,
        catchUp: "last",
      }),
    });
    expect(project.schedules[0]).toMatchObject({
      everyMs: 5_400_000,
      timezone: "Europe/Berlin",
      agent: "bot",
      enabled: false,
      catchUp: "last",
    });
  });

  it("names the file and key of every mistake: a bad pattern, an unknown timezone, a short every, an unknown gateway", async () => {
    const errors = await loadErrors({
      "gateways/tg.yaml": TG,
      "schedules/a.yaml": "cron: '61 * * * *'\nprompt: p\nto: { gateway: tg, thread: 1 }\n",
      "schedules/b.yaml":
        "cron: '* * * * *'\ntimezone: Mars/Olympus\nprompt: p\nto: { gateway: tg, thread: 1 }\n",
      "schedules/c.yaml": "every: 5s\nprompt: p\nto: { gateway: tg, thread: 1 }\n",
      "schedules/d.yaml": "every: 1m\nprompt: p\nto: { gateway: slack, thread: C1 }\n",
      "schedules/e.yaml": "every: 1m\ncron: '* * * * *'\nprompt: p\nto: { gateway: tg, thread: 1 }\n",
      "schedules/f.yaml": "every: 1m\nprompt: p\nto: { gateway: tg, thred: 1 }\n",
      "schedules/g.yaml": "every: 1m\nprompt: p\nagent: nobody\nto: { gateway: tg, thread: 1 }\n",
    });
    expectError(errors, "schedules/a.yaml", "cron", /5 or 6 fields/);
    expectError(errors, "schedules/b.yaml", "timezone", /IANA timezone/);
    expectError(errors, "schedules/c.yaml", "every", /at least 10s/);
    expectError(
      errors,
      "schedules/d.yaml",
      "to.gateway",
      /push gateway entry under gateways\/ \(declared: tg\)/,
    );
    expectError(errors, "schedules/e.yaml", "", /exactly one of them/);
    expectError(errors, "schedules/f.yaml", "to.thred", /did you mean "thread"/);
    expectError(errors, "schedules/g.yaml", "agent", /agent file under agents\/ \(found: bot\)/);
  });

  it("reads a WhatsApp template and an e-mail subject; refuses them on other platforms and a name without a language", async () => {
    const WA =
      "type: whatsapp\naccessTokenEnvVar: A\nphoneNumberIdEnvVar: P\nappSecretEnvVar: S\nverifyTokenEnvVar: V\n";
    const MAIL =
      "type: email\nimapHostEnvVar: H\nimapUsernameEnvVar: U\nimapPasswordEnvVar: W\nfromAddressEnvVar: F\n";
    const project = await loadOk({
      "gateways/wa.yaml": WA,
      "gateways/mail.yaml": MAIL,
      "schedules/a.yaml":
        "every: 1h\nprompt: p\nto: { gateway: wa, thread: '15550001', templateName: weekly_report, templateLanguage: en_US }\n",
      "schedules/b.yaml":
        "every: 1h\nprompt: p\nto: { gateway: mail, thread: ada@example.com, subject: Weekly report }\n",
    });
    expect(project.schedules.map((s) => s.to)).toEqual([
      { gateway: "whatsapp", thread: "15550001", template: { name: "weekly_report", language: "en_US" } },
      { gateway: "email", thread: "ada@example.com", subject: "Weekly report" },
    ]);
    const errors = await loadErrors({
      "gateways/wa.yaml": WA,
      "gateways/tg.yaml": TG,
      "schedules/c.yaml":
        "every: 1h\nprompt: p\nto: { gateway: wa, thread: '1', templateName: weekly_report }\n",
      "schedules/d.yaml": "every: 1h\nprompt: p\nto: { gateway: tg, thread: 1, subject: Hi }\n",
    });
    expectError(errors, "schedules/c.yaml", "to.templateLanguage", /go together/);
    expectError(
      errors,
      "schedules/d.yaml",
      "to.subject",
      /for email targets only \(this schedule sends to telegram\)/,
    );
  });

  it("hands a third-party adapter's schedule keys to it (its scheduleTarget), refusing them on other targets", async () => {
    const dir = writeProject({
      "gateways/chat.yaml": "type: agentsvc-gateway-toy\n",
      "gateways/tg.yaml": TG,
      "schedules/a.yaml": "every: 1h\nprompt: p\nto: { gateway: toy, thread: t1, priority: high }\n",
    });
    installToyScheduleAdapter(dir, "{ urgent: true }");
    const r = await loadProject(dir);
    expect(r.ok && r.project.schedules.map((s) => s.to)).toEqual([
      { gateway: "toy", thread: "t1", urgent: true },
    ]);
    writeFileSync(
      join(dir, "schedules/b.yaml"),
      "every: 1h\nprompt: p\nto: { gateway: tg, thread: 1, priority: high }\n",
    );
    writeFileSync(
      join(dir, "schedules/c.yaml"),
      "every: 1h\nprompt: p\nto: { gateway: toy, thread: t1, priority: low }\n",
    );
    const bad = await loadProject(dir);
    const errors = bad.ok ? [] : bad.errors;
    expectError(
      errors,
      "schedules/b.yaml",
      "to.priority",
      /for toy targets only \(this schedule sends to telegram\)/,
    );
    expectError(errors, "schedules/c.yaml", "to.priority", /must be high/);
  });

  it("reads a chat page target (default conversation schedule-<name>); refuses an unknown page, a user not among its accounts, and gateway keys beside it", async () => {
    const WEB = "exposes: webui\npath: /chat\nusers:\n  - username: ada\n    passwordEnvVar: ADA_PW\n";
    const project = await loadOk({
      "gateways/web.yaml": WEB,
      "schedules/digest.yaml": "every: 1h\nprompt: p\nto: { page: web, user: ada }\n",
    });
    expect(project.schedules[0]?.to).toEqual({ page: "web", user: "ada", conversation: "schedule-digest" });
    const errors = await loadErrors({
      "gateways/web.yaml": WEB,
      "schedules/a.yaml": "every: 1h\nprompt: p\nto: { page: chat, user: ada }\n",
      "schedules/b.yaml": "every: 1h\nprompt: p\nto: { page: web, user: eve }\n",
      "schedules/c.yaml": "every: 1h\nprompt: p\nto: { page: web, user: ada, thread: 1 }\n",
      "schedules/d.yaml": "every: 1h\nprompt: p\nto: { thread: 1 }\n",
    });
    expectError(
      errors,
      "schedules/a.yaml",
      "to.page",
      /chat page entry \(exposes: webui\) under gateways\/ \(declared: web\)/,
    );
    expectError(errors, "schedules/b.yaml", "to.user", /one of the page's accounts \(ada\)/);
    expectError(errors, "schedules/c.yaml", "to.thread", /push gateway targets/);
    expectError(errors, "schedules/d.yaml", "to.gateway", /is required/);
  });

  it("refuses an agent other than the root agent for a gateway target (the gateway session's), takes one for a chat page", async () => {
    const errors = await loadErrors({
      "agentsvc.config.yaml": "rootAgent: bot\n",
      "agents/bot.ts": `export default { kind: "agent", name: "bot", model: { provider: "demo" } };\n`,
      "agents/helper.ts": `export default { kind: "agent", name: "helper", model: { provider: "demo" } };\n`,
      "gateways/tg.yaml": TG,
      "schedules/a.yaml": "every: 1m\nprompt: p\nagent: helper\nto: { gateway: tg, thread: 1 }\n",
    });
    expectError(errors, "schedules/a.yaml", "agent", /must be the root agent \("bot"\)/);
    const project = await loadOk({
      "agentsvc.config.yaml": "rootAgent: bot\n",
      "agents/bot.ts": `export default { kind: "agent", name: "bot", model: { provider: "demo" } };\n`,
      "agents/helper.ts": `export default { kind: "agent", name: "helper", model: { provider: "demo" } };\n`,
      "gateways/web.yaml": "exposes: webui\npath: /chat\n",
      "schedules/p.yaml": "every: 1m\nprompt: p\nagent: helper\nto: { page: web }\n",
    });
    expect(project.schedules[0]).toMatchObject({
      agent: "helper",
      to: { page: "web", conversation: "schedule-p" },
    });
  });
});
