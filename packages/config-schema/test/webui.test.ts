import { describe, expect, it } from "vitest";
import { formatIssue, type WebuiExposure } from "../src/index.js";
import { expectError, loadErrors, loadOk } from "./helpers.js";

const WEB = "gateways/web.yaml";
const base = "exposes: webui\npath: /chat\n";

async function webui(extra: string, files: Record<string, string> = {}): Promise<WebuiExposure> {
  const p = await loadOk({ [WEB]: base + extra, ...files });
  return p.exposures[0] as WebuiExposure;
}

async function webuiErrors(extra: string, files: Record<string, string> = {}) {
  return loadErrors({ [WEB]: base + extra, ...files });
}

describe("webui entry keys and defaults", () => {
  it("fills every default of the entry table", async () => {
    const w = await webui("");
    expect(w).toEqual({
      entryName: "web",
      file: WEB,
      exposes: "webui",
      path: "/chat",
      database: { datasource: "agentsvc", path: "./data/chat.db" },
      showReasoning: true,
      showToolCalls: true,
      theme: {},
      themeDark: {},
      themeFile: "resources/webui/theme.css",
    });
  });

  it("keeps every optional text and flag as configured", async () => {
    const w = await webui(
      "title: Hi\nsubtitle: Sub\nwelcome: Hello\nplaceholder: Ask\nfooter: Foot\nshowReasoning: false\nshowToolCalls: false\n",
    );
    expect(w).toMatchObject({
      title: "Hi",
      subtitle: "Sub",
      welcome: "Hello",
      placeholder: "Ask",
      footer: "Foot",
      showReasoning: false,
      showToolCalls: false,
    });
  });

  it("rejects a non-boolean showReasoning", async () => {
    const errors = await webuiErrors("showReasoning: sometimes\n");
    expectError(errors, WEB, "showReasoning", /must be true or false .*\(got "sometimes"\)/);
  });
});

describe("webui database", () => {
  it("accepts a datasource declared in the config", async () => {
    const w = await webui("database:\n  datasource: chat\n  path: data/other.db\n", {
      "agentsvc.config.yaml": "datasources:\n  chat:\n    type: sqlite\n",
    });
    expect(w.database).toEqual({ datasource: "chat", path: "data/other.db" });
  });

  it("always knows the agentsvc datasource, declared or not", async () => {
    const p = await loadOk({ [WEB]: `${base}database:\n  datasource: agentsvc\n` });
    expect(p.config.datasources).toEqual({ agentsvc: { type: "sqlite" } });
  });

  it("rejects a datasource name that is not declared", async () => {
    const errors = await webuiErrors("database:\n  datasource: chat\n");
    expectError(
      errors,
      WEB,
      "database.datasource",
      /must name a declared datasource \(declared: agentsvc\) \(got "chat"\)/,
    );
  });

  it("rejects an inline datasource structure", async () => {
    const errors = await webuiErrors("database:\n  datasource:\n    type: sqlite\n    file: x.db\n");
    expectError(errors, WEB, "database.datasource", /an inline datasource structure is not allowed/);
  });

  it("rejects an absolute database.path with the documented message", async () => {
    const errors = await webuiErrors("database:\n  path: /var/chat.db\n");
    const e = expectError(errors, WEB, "database.path", /relative/);
    expect(formatIssue(e)).toBe(
      'gateways/web.yaml: database.path: must be relative to the app root (got "/var/chat.db")',
    );
  });

  it("rejects a database.path with a .. segment", async () => {
    const errors = await webuiErrors("database:\n  path: data/../../chat.db\n");
    expectError(errors, WEB, "database.path", /must not contain a "\.\." segment/);
  });

  it("accepts ..hidden and a..b, which are not .. segments", async () => {
    const a = await webui("database:\n  path: ..hidden/chat.db\n");
    const b = await webui("database:\n  path: data/a..b.db\n");
    expect([a.database.path, b.database.path]).toEqual(["..hidden/chat.db", "data/a..b.db"]);
  });
});

describe("webui theme tokens", () => {
  it("adds # to bare hex and keeps rgb(), hsl() and named colours as written", async () => {
    const w = await webui(
      "theme:\n  accent: 0a84ff\n  bg: fff\n  fg: rgb(10, 20, 30)\n  muted: hsl(210 10% 40%)\n  border: rebeccapurple\n  radius: 12px\n  font: '\"Inter\", system-ui, sans-serif'\n  dark:\n    bg: 111827\n    accent: '#123456'\n",
    );
    expect(w.theme).toEqual({
      accent: "#0a84ff",
      bg: "#fff",
      fg: "rgb(10, 20, 30)",
      muted: "hsl(210 10% 40%)",
      border: "rebeccapurple",
      radius: "12px",
      font: '"Inter", system-ui, sans-serif',
    });
    expect(w.themeDark).toEqual({ bg: "#111827", accent: "#123456" });
  });

  it("rejects an unknown theme token", async () => {
    const errors = await webuiErrors("theme:\n  accentColor: 0a84ff\n");
    expectError(
      errors,
      WEB,
      "theme.accentColor",
      /unknown theme token in theme \(known tokens: accent, accentFg/,
    );
  });

  it("rejects an unknown theme token inside theme.dark", async () => {
    const errors = await webuiErrors("theme:\n  dark:\n    background: 000\n");
    expectError(errors, WEB, "theme.dark.background", /unknown theme token in theme\.dark/);
  });

  it("explains the YAML comment pitfall of an unquoted #hex", async () => {
    const errors = await webuiErrors("theme:\n  accent: #0a84ff\n");
    expectError(errors, WEB, "theme.accent", /an unquoted # starts a comment.*\(got null\)/);
  });

  it("rejects a value that could break out of the style block", async () => {
    const errors = await webuiErrors("theme:\n  font: 'x;} body{display:none'\n  accent: 'red</style>'\n");
    expectError(errors, WEB, "theme.font", /must not contain < > \{ \} ;/);
    expectError(errors, WEB, "theme.accent", /must not contain < > \{ \} ;/);
  });

  it("rejects a colour token that is no colour", async () => {
    const errors = await webuiErrors("theme:\n  accent: 12 px\n");
    expectError(errors, WEB, "theme.accent", /must be a colour/);
  });
});

describe("webui theme file", () => {
  it("reads the default theme file when present", async () => {
    const w = await webui("", { "resources/webui/theme.css": ".x { color: #0a84ff; }\n" });
    expect(w.themeCss).toBe(".x { color: #0a84ff; }\n");
  });

  it("is fine without the default theme file", async () => {
    const w = await webui("");
    expect(w.themeCss).toBeUndefined();
  });

  it("reads an explicitly configured theme file", async () => {
    const w = await webui("themeFile: styles/brand.css\n", { "styles/brand.css": "h1 { margin: 0 }" });
    expect(w).toMatchObject({ themeFile: "styles/brand.css", themeCss: "h1 { margin: 0 }" });
  });

  it("rejects a missing explicitly configured theme file", async () => {
    const errors = await webuiErrors("themeFile: styles/brand.css\n");
    expectError(
      errors,
      WEB,
      "themeFile",
      /must name an existing CSS file \(got "styles\/brand\.css" \(not found\)\)/,
    );
  });

  it("rejects a literal </style in the theme file, in any case, naming the line", async () => {
    const errors = await webuiErrors("", {
      "resources/webui/theme.css": "a { color: red }\n/* </STYLE> */\n",
    });
    expectError(
      errors,
      "resources/webui/theme.css",
      "line 2",
      /must not contain a literal "<\/style".*gateways\/web\.yaml/,
    );
  });

  it("rejects an absolute or escaping themeFile path", async () => {
    const errors = await loadErrors({
      [WEB]: `${base}themeFile: /etc/theme.css\n`,
      "gateways/w2.yaml": "exposes: webui\npath: /w2\nthemeFile: ../theme.css\n",
    });
    expectError(errors, WEB, "themeFile", /must be relative to the app root/);
    expectError(errors, "gateways/w2.yaml", "themeFile", /must not contain a "\.\." segment/);
  });
});

describe("webui icon", () => {
  it("accepts an emoji (including ZWJ sequences and flags) as kind emoji", async () => {
    for (const icon of ["👋", "👋🏽", "❤️", "👩‍💻", "🇳🇱", "1️⃣"]) {
      const w = await webui(`icon: "${icon}"\n`);
      expect(w.icon).toEqual({ kind: "emoji", value: icon });
    }
  });

  it("accepts a path, an http(s) URL and a data:image/ URI as kind image", async () => {
    for (const src of [
      "/logo.svg",
      "./img/logo.png",
      "https://cdn.example.test/l.png",
      "data:image/png;base64,AAAA",
    ]) {
      const w = await webui(`icon: "${src}"\n`);
      expect(w.icon).toEqual({ kind: "image", src });
    }
  });

  it("rejects plain words, other URL schemes and two emoji", async () => {
    for (const icon of ["hello", "javascript:alert(1)", "👋👋", "👋🏽👋"]) {
      const errors = await webuiErrors(`icon: "${icon}"\n`);
      expectError(errors, WEB, "icon", /must be one emoji or an image reference/);
    }
  });
});

describe("webui accounts", () => {
  const HASH = "pbkdf2$600000$c2FsdHNhbHQ$ZGlnZXN0ZGlnZXN0ZGlnZXN0";
  // Each entry's own username: one username on two pages is one memory user (memory-users.test.ts).
  const team = (path: string, db: string) =>
    `exposes: webui\npath: ${path}\ndatabase:\n  path: ${db}\nusers:\n  - username: ada${path.replace(/\W/g, "_")}\n    passwordEnvVar: ADA\n`;

  it("rejects usernames that are another identity's memory scope (gateway types, channel entries, anonymous, ':')", async () => {
    const errors = await loadErrors({
      [WEB]: `${base}users:\n  - username: telegram\n    passwordEnvVar: A\n  - username: hooks\n    passwordEnvVar: B\n  - username: anonymous\n    passwordEnvVar: C\n  - username: a:b\n    passwordEnvVar: D\n  - username: ada\n    passwordEnvVar: E\n`,
      "gateways/hooks.yaml": "type: http\nsecretEnvVar: HOOKS_SECRET\n",
    });
    expectError(errors, WEB, "users[0].username", /reserved: it is the memory scope of the telegram gateway/);
    expectError(
      errors,
      WEB,
      "users[1].username",
      /reserved: it is the memory scope of the channel adapter gateways\/hooks.yaml/,
    );
    expectError(errors, WEB, "users[2].username", /reserved/);
    expectError(errors, WEB, "users[3].username", /must not contain ":"/);
    expect(errors.some((e) => e.path === "users[4].username")).toBe(false);
  });

  it("accepts two entries with users when each has its own store file", async () => {
    const p = await loadOk({
      "gateways/a.yaml": team("/a", "./data/a.db"),
      "gateways/b.yaml": team("/b", "./data/b.db"),
    });
    expect(p.exposures).toHaveLength(2);
  });

  it("rejects two entries with users on one store file (each seeder would deactivate the other's accounts)", async () => {
    const errors = await loadErrors({
      "gateways/a.yaml": team("/a", "./data/team.db"),
      "gateways/b.yaml": team("/b", "data/team.db"),
    });
    expectError(
      errors,
      "gateways/b.yaml",
      "database.path",
      /need a store of their own \(also used by gateways\/a.yaml/,
    );
  });

  it("accepts accounts with passwordEnvVar or passwordHash; displayName defaults to username", async () => {
    const w = await webui(
      `users:\n  - username: ada\n    displayName: Ada L.\n    passwordEnvVar: ADA_PASSWORD\n  - username: bob\n    passwordHash: "${HASH}"\n`,
    );
    expect(w.users).toEqual([
      { username: "ada", displayName: "Ada L.", passwordEnvVar: "ADA_PASSWORD" },
      { username: "bob", displayName: "bob", passwordHash: HASH },
    ]);
  });

  it("rejects a literal password key without echoing the password", async () => {
    const errors = await webuiErrors("users:\n  - username: ada\n    password: hunter2-secret\n");
    const e = expectError(errors, WEB, "users[0].password", /a literal password is not allowed/);
    expect(errors.map(formatIssue).join("\n")).not.toContain("hunter2-secret");
    expect(e.found).toBe('key "password"');
  });

  it("rejects an account with neither passwordEnvVar nor passwordHash", async () => {
    const errors = await webuiErrors("users:\n  - username: ada\n");
    expectError(errors, WEB, "users[0]", /needs passwordEnvVar or passwordHash/);
  });

  it("rejects a passwordHash not of the form pbkdf2$<iterations>$<salt>$<digest>", async () => {
    const errors = await webuiErrors('users:\n  - username: ada\n    passwordHash: "bcrypt$10$abc$def"\n');
    expectError(
      errors,
      WEB,
      "users[0].passwordHash",
      /must have the form pbkdf2\$<iterations>\$<salt>\$<digest>/,
    );
  });

  it("rejects two accounts with one username", async () => {
    const errors = await webuiErrors(
      "users:\n  - username: ada\n    passwordEnvVar: A\n  - username: ada\n    passwordEnvVar: B\n",
    );
    expectError(errors, WEB, "users[1].username", /must be unique within the entry/);
  });
});

describe("webui theme values written as digits", () => {
  it("keeps all-digit bare hex from YAML as hex, leading zeros included", async () => {
    const w = await webui("theme:\n  accent: 001122\n  dark:\n    bg: 111827\n");
    expect(w.theme.accent).toBe("#001122");
    expect(w.themeDark.bg).toBe("#111827");
  });

  it("rejects a number token in a JSON entry, asking for a string", async () => {
    const errors = await loadErrors({
      "gateways/web.json": '{ "exposes": "webui", "path": "/c", "theme": { "bg": 111827 } }',
    });
    expectError(
      errors,
      "gateways/web.json",
      "theme.bg",
      /must be a string \(write bg: "112233" or "8px", not a number\) \(got 111827\)/,
    );
  });

  it("accepts up to 6 starter prompts and refuses more, blank ones or overlong ones", async () => {
    const ok = await loadOk({
      "gateways/web.yaml":
        "exposes: webui\npath: /chat\nstarterPrompts:\n  - What time is it?\n  - Send a note\n",
    });
    expect(ok.exposures[0]).toMatchObject({ starterPrompts: ["What time is it?", "Send a note"] });
    const seven = Array.from({ length: 7 }, (_, i) => `  - p${i}`).join("\n");
    const errors = await loadErrors({
      "gateways/web.yaml": `exposes: webui\npath: /chat\nstarterPrompts:\n${seven}\n`,
    });
    expectError(errors, "gateways/web.yaml", "starterPrompts", /at most 6 prompts/);
    const blank = await loadErrors({
      "gateways/web.yaml": `exposes: webui\npath: /chat\nstarterPrompts:\n  - "  "\n  - ${"x".repeat(201)}\n`,
    });
    expectError(blank, "gateways/web.yaml", "starterPrompts[0]", /must not be empty/);
    expectError(blank, "gateways/web.yaml", "starterPrompts[1]", /at most 200 characters/);
  });
});
