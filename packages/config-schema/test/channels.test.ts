import { describe, expect, it } from "vitest";
import { formatIssue, type PushGatewayEntry } from "../src/index.js";
import { expectError, load, loadErrors, loadOk } from "./helpers.js";

// Required keys per push-style type (spec gateways.md §2), and the defaults the loader must fill in.
const PUSH: Record<string, { required: string[]; defaults: Record<string, unknown> }> = {
  telegram: { required: ["botTokenEnvVar"], defaults: { apiBaseUrl: "https://api.telegram.org" } },
  slack: {
    required: ["botTokenEnvVar", "appTokenEnvVar"],
    defaults: { apiBaseUrl: "https://slack.com/api" },
  },
  discord: {
    required: ["botTokenEnvVar"],
    defaults: { intents: 37377, apiBaseUrl: "https://discord.com/api/v10" },
  },
  email: {
    required: ["imapHostEnvVar", "imapUsernameEnvVar", "imapPasswordEnvVar", "fromAddressEnvVar"],
    defaults: { imapPort: 993, pollIntervalSeconds: 60, smtpPort: 465 },
  },
  whatsapp: {
    required: ["accessTokenEnvVar", "phoneNumberIdEnvVar", "appSecretEnvVar", "verifyTokenEnvVar"],
    defaults: { apiVersion: "v21.0", apiBaseUrl: "https://graph.facebook.com" },
  },
  teams: {
    required: ["appIdEnvVar", "appPasswordEnvVar"],
    defaults: {
      tenantId: "botframework.com",
      openIdMetadataUrl: "https://login.botframework.com/v1/.well-known/openidconfiguration",
      loginBaseUrl: "https://login.microsoftonline.com",
      serviceUrl: "https://smba.trafficmanager.net/teams/",
    },
  },
  twilio: {
    required: ["accountSidEnvVar", "authTokenEnvVar", "fromEnvVar"],
    defaults: { apiBaseUrl: "https://api.twilio.com" },
  },
  github: {
    required: ["tokenEnvVar", "webhookSecretEnvVar", "botNameEnvVar"],
    defaults: { apiBaseUrl: "https://api.github.com" },
  },
  signal: { required: ["accountEnvVar"], defaults: { httpUrl: "http://127.0.0.1:8080" } },
};

function yamlOf(type: string, keys: string[]): string {
  return [`type: ${type}`, ...keys.map((k) => `${k}: ${k.replace(/EnvVar$/, "").toUpperCase()}_VAR`)].join(
    "\n",
  );
}

describe("channel-adapter entries", () => {
  it("accepts mock, cli and http (with secretEnvVar)", async () => {
    const p = await loadOk({
      "gateways/m.yaml": "type: mock\n",
      "gateways/c.yaml": "type: cli\n",
      "gateways/h.yaml": "type: http\nsecretEnvVar: HTTP_SECRET\n",
    });
    expect(p.channels).toEqual([
      { entryName: "c", file: "gateways/c.yaml", type: "cli" },
      { entryName: "h", file: "gateways/h.yaml", type: "http", secretEnvVar: "HTTP_SECRET" },
      { entryName: "m", file: "gateways/m.yaml", type: "mock" },
    ]);
  });

  it("rejects an http entry without secretEnvVar", async () => {
    const errors = await loadErrors({ "gateways/h.yaml": "type: http\n" });
    expectError(errors, "gateways/h.yaml", "secretEnvVar", /is required in an http channel/);
  });

  it("rejects a type outside the known set (a personal-account bridge) as unknown type", async () => {
    const errors = await loadErrors({ "gateways/wa.yaml": "type: whatsapp-web\nsessionDir: ./wa\n" });
    const e = expectError(
      errors,
      "gateways/wa.yaml",
      "type",
      /unknown type \(expected one of mock, cli, http, telegram/,
    );
    expect(formatIssue(e)).toContain('(got "whatsapp-web")');
  });

  it("rejects a duplicate channel-adapter entry name (x.yaml beside x.ts)", async () => {
    const errors = await loadErrors({
      "gateways/x.yaml": "type: cli\n",
      "gateways/x.ts": `export default { type: "mock" };\n`,
    });
    expectError(
      errors,
      "gateways/x.yaml",
      "",
      /duplicate gateway entry name "x": must be unique \(got gateways\/x\.ts, gateways\/x\.yaml\)/,
    );
  });

  it("warns loudly about two push-style entries of one type, naming both files; the later one wins", async () => {
    const r = await load({
      "gateways/a-bot.yaml": "type: telegram\nbotTokenEnvVar: TG_ONE\n",
      "gateways/b-bot.yaml": "type: telegram\nbotTokenEnvVar: TG_TWO\n",
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.warnings).toHaveLength(1);
    const w = formatIssue(r.warnings[0]!);
    expect(w).toMatch(/^gateways\/b-bot\.yaml: type: two telegram entries/);
    expect(w).toMatch(/overwrites gateways\/a-bot\.yaml at registration/);
    expect(w).toContain("gateways/a-bot.yaml");
    expect(w).toContain("gateways/b-bot.yaml");
    expect(r.project.pushGateways).toEqual([
      {
        entryName: "b-bot",
        file: "gateways/b-bot.yaml",
        type: "telegram",
        botTokenEnvVar: "TG_TWO",
        apiBaseUrl: "https://api.telegram.org",
      },
    ]);
  });

  it("does not warn for push-style entries of different types", async () => {
    const r = await load({
      "gateways/t.yaml": "type: telegram\nbotTokenEnvVar: TG\n",
      "gateways/s.yaml": "type: signal\naccountEnvVar: SIGNAL_ACCOUNT\n",
    });
    expect(r.ok && r.warnings).toEqual([]);
  });

  describe.each(Object.entries(PUSH))("push-style type %s", (type, spec) => {
    it("accepts the required keys and fills the optional defaults", async () => {
      const p = await loadOk({ [`gateways/${type}.yaml`]: yamlOf(type, spec.required) });
      const entry = p.pushGateways[0] as PushGatewayEntry & Record<string, unknown>;
      expect(entry).toMatchObject({ type, entryName: type, file: `gateways/${type}.yaml`, ...spec.defaults });
      for (const k of spec.required) expect(entry[k]).toBe(`${k.replace(/EnvVar$/, "").toUpperCase()}_VAR`);
    });

    it("rejects an entry missing any required key, naming each missing key", async () => {
      const errors = await loadErrors({ [`gateways/${type}.yaml`]: `type: ${type}\n` });
      for (const k of spec.required) expectError(errors, `gateways/${type}.yaml`, k, /is required/);
      expect(errors).toHaveLength(spec.required.length);
    });
  });

  it("keeps explicit optional push-style values instead of defaults", async () => {
    const p = await loadOk({
      "gateways/mail.yaml": `${yamlOf("email", PUSH.email!.required)}\nimapPort: 143\npollIntervalSeconds: 5\nsmtpHostEnvVar: SMTP_HOST\nsmtpPort: 587\ntrustedAuthservIds: [mx.google.com, mx.example.net]\ntlsCaFile: certs/ca.pem\n`,
      "gateways/sms.yaml": `${yamlOf("twilio", PUSH.twilio!.required)}\nmessagingServiceSid: MG123\npublicUrl: https://example.test/hook\n`,
    });
    expect(p.pushGateways.find((g) => g.type === "email")).toMatchObject({
      imapPort: 143,
      pollIntervalSeconds: 5,
      smtpHostEnvVar: "SMTP_HOST",
      smtpPort: 587,
      trustedAuthservIds: ["mx.google.com", "mx.example.net"],
      tlsCaFile: "certs/ca.pem",
    });
    expect(p.pushGateways.find((g) => g.type === "twilio")).toMatchObject({
      messagingServiceSid: "MG123",
      publicUrl: "https://example.test/hook",
    });
  });

  it("rejects bad optional push-style values (port range, URL, api version)", async () => {
    const errors = await loadErrors({
      "gateways/mail.yaml": `${yamlOf("email", PUSH.email!.required)}\nimapPort: 70000\nsmtpPasswordEnvVar: "lower case"\ntrustedAuthservIds: ["mx.google.com; dmarc=pass"]\ntlsCaFile: ""\n`,
      "gateways/sig.yaml": `${yamlOf("signal", PUSH.signal!.required)}\nhttpUrl: localhost:8080\n`,
      "gateways/wa.yaml": `${yamlOf("whatsapp", PUSH.whatsapp!.required)}\napiVersion: "21"\ntemplateName: Reopen-Chat\ntemplateLanguage: english\n`,
    });
    expectError(
      errors,
      "gateways/mail.yaml",
      "imapPort",
      /must be at most 65535 \(IMAP port\) \(got 70000\)/,
    );
    expectError(errors, "gateways/mail.yaml", "smtpPasswordEnvVar", /./);
    expectError(errors, "gateways/mail.yaml", "trustedAuthservIds[0]", /must be the authserv-id/);
    expectError(errors, "gateways/mail.yaml", "tlsCaFile", /./);
    expectError(errors, "gateways/sig.yaml", "httpUrl", /must be an http\(s\) URL/);
    expectError(errors, "gateways/wa.yaml", "apiVersion", /must look like v21\.0/);
    expectError(errors, "gateways/wa.yaml", "templateName", /must be a template name/);
    expectError(errors, "gateways/wa.yaml", "templateLanguage", /must look like en or en_US/);
  });

  it("keeps streaming and streamIntervalMs on a gateway entry and rejects bad values", async () => {
    const p = await loadOk({
      "gateways/dc.yaml": `${yamlOf("discord", PUSH.discord!.required)}\nstreaming: false\nstreamIntervalMs: 1500\n`,
    });
    expect(p.pushGateways.find((g) => g.type === "discord")).toMatchObject({
      streaming: false,
      streamIntervalMs: 1500,
    });
    const errors = await loadErrors({
      "gateways/dc.yaml": `${yamlOf("discord", PUSH.discord!.required)}\nstreaming: "yes"\nstreamIntervalMs: 50\n`,
    });
    expectError(errors, "gateways/dc.yaml", "streaming", /must be true or false/);
    expectError(errors, "gateways/dc.yaml", "streamIntervalMs", /must be at least 250/);
  });

  it("keeps a whatsapp re-engagement template and its language", async () => {
    const p = await loadOk({
      "gateways/wa.yaml": `${yamlOf("whatsapp", PUSH.whatsapp!.required)}\ntemplateName: reopen_chat\ntemplateLanguage: pt_BR\n`,
    });
    expect(p.pushGateways.find((g) => g.type === "whatsapp")).toMatchObject({
      templateName: "reopen_chat",
      templateLanguage: "pt_BR",
    });
  });

  it("accepts an http(s) apiBaseUrl on the connection gateways and rejects anything else", async () => {
    const p = await loadOk({
      "gateways/tg.yaml": `${yamlOf("telegram", PUSH.telegram!.required)}\napiBaseUrl: http://127.0.0.1:8081\n`,
    });
    expect(p.pushGateways.find((g) => g.type === "telegram")).toMatchObject({
      apiBaseUrl: "http://127.0.0.1:8081",
    });
    const errors = await loadErrors({
      "gateways/tg.yaml": `${yamlOf("telegram", PUSH.telegram!.required)}\napiBaseUrl: api.telegram.org\n`,
      "gateways/sl.yaml": `${yamlOf("slack", PUSH.slack!.required)}\napiBaseUrl: ftp://slack.test\n`,
      "gateways/dc.yaml": `${yamlOf("discord", PUSH.discord!.required)}\napiBaseUrl: 12\n`,
    });
    expectError(errors, "gateways/tg.yaml", "apiBaseUrl", /must be an http\(s\) URL \(Bot API base URL/);
    expectError(errors, "gateways/sl.yaml", "apiBaseUrl", /must be an http\(s\) URL/);
    expectError(errors, "gateways/dc.yaml", "apiBaseUrl", /must be a string/);
  });
});
