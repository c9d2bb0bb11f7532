// A schedule's platform keys (e-mail's subject, WhatsApp's template) are the adapters' own
// (`scheduleTarget`): the bundled `check` accepts them on their platform's target and refuses them,
// by file and key, on another's or when WhatsApp's pair is incomplete.
import { describe, expect, it } from "vitest";
import { runBin } from "./child.js";
import { BOT_AGENT, linkPackages, tempDir, writeFiles } from "./helpers.js";

const WA =
  "type: whatsapp\naccessTokenEnvVar: A\nphoneNumberIdEnvVar: P\nappSecretEnvVar: S\nverifyTokenEnvVar: V\n";
const MAIL =
  "type: email\nimapHostEnvVar: H\nimapUsernameEnvVar: U\nimapPasswordEnvVar: W\nfromAddressEnvVar: F\n";
const TG = "type: telegram\nbotTokenEnvVar: TG\n";

function project(schedules: Record<string, string>): string {
  const dir = writeFiles(tempDir("agentsvc-schedule-targets-"), {
    "agents/bot.mjs": BOT_AGENT,
    "gateways/wa.yaml": WA,
    "gateways/mail.yaml": MAIL,
    "gateways/tg.yaml": TG,
    ...schedules,
  });
  linkPackages(dir, {
    "@agentsvc/gateway-whatsapp": "packages/gateway-whatsapp",
    "@agentsvc/gateway-email": "packages/gateway-email",
    "@agentsvc/gateway-telegram": "packages/gateway-telegram",
  });
  return dir;
}

describe("schedule targets' platform keys through the bundled check", () => {
  it("accepts a WhatsApp template and an e-mail subject on their own targets", () => {
    const r = runBin([
      "check",
      project({
        "schedules/a.yaml":
          "every: 1h\nprompt: p\nto: { gateway: wa, thread: '15550001', templateName: weekly_report, templateLanguage: en_US }\n",
        "schedules/b.yaml":
          "every: 1h\nprompt: p\nto: { gateway: mail, thread: ada@example.com, subject: Weekly report }\n",
      }),
    ]);
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.code).toBe(0);
  });

  it("refuses a subject on a Telegram target and a template name without its language, by file and key", () => {
    const r = runBin([
      "check",
      project({
        "schedules/c.yaml":
          "every: 1h\nprompt: p\nto: { gateway: wa, thread: '1', templateName: weekly_report }\n",
        "schedules/d.yaml": "every: 1h\nprompt: p\nto: { gateway: tg, thread: 1, subject: Hi }\n",
      }),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "error schedules/c.yaml: to.templateLanguage: templateName and templateLanguage go together",
    );
    expect(r.stderr).toContain(
      "error schedules/d.yaml: to.subject: is for email targets only (this schedule sends to telegram)",
    );
  });
});
