// Every full configuration block the READMEs show is validated as written by the built `agentsvc
// check`, so an example that stops validating (a renamed key, a new required one) fails here. A full
// block is a ```yaml block whose first line names its project file (`# gateways/telegram.yaml`,
// `# schedules/x.yaml`, `# agentsvc.config.yaml`) or a ```json gateway entry (`"type": ...`);
// one-line fragments (`to: { ... }`), Kubernetes and Prometheus files are not project files.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { runBin, runBinAsync } from "./child.js";
import { BOT_AGENT, linkAdapters, linkPackages, repoRoot, tempDir, writeFiles } from "./helpers.js";

interface Example {
  /** README path and line of the opening fence. */
  where: string;
  /** The project file the block is. */
  file: string;
  text: string;
}

const PROJECT_FILE = /^# ((?:gateways|schedules)\/[\w.-]+\.ya?ml|agentsvc\.config\.ya?ml)\s*$/;

function readmes(): string[] {
  const inFolders = ["packages", "apps"].flatMap((parent) =>
    readdirSync(join(repoRoot, parent)).map((name) => join(parent, name, "README.md")),
  );
  const docs = readdirSync(join(repoRoot, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => join("docs", f));
  return ["README.md", ...inFolders, ...docs].filter((f) => {
    try {
      readFileSync(join(repoRoot, f));
      return true;
    } catch {
      return false;
    }
  });
}

function examples(): Example[] {
  const found: Example[] = [];
  for (const readme of readmes()) {
    const text = readFileSync(join(repoRoot, readme), "utf8");
    // Fences may be indented (a block inside a list item): the block is taken out dedented.
    for (const m of text.matchAll(/^([ \t]*)```(yaml|yml|json)\n([\s\S]*?)^\1```/gm)) {
      const indent = (m[1] as string).length;
      const body = (m[3] as string)
        .split("\n")
        .map((l) => l.slice(indent))
        .join("\n");
      const where = `${readme}:${text.slice(0, m.index).split("\n").length}`;
      if (m[2] === "json") {
        let entry: unknown;
        try {
          entry = JSON.parse(body);
        } catch {
          continue;
        }
        const type = (entry as { type?: unknown }).type;
        if (typeof type === "string") found.push({ where, file: `gateways/${type}.json`, text: body });
        continue;
      }
      const file = PROJECT_FILE.exec(body.split("\n")[0] as string)?.[1];
      if (file) found.push({ where, file, text: body });
    }
  }
  return found;
}

// What the examples refer to besides themselves: the root agent, the Telegram entry a schedule
// posts to, and the tool server the MCP exposure names (packages/mcp's README declares it above).
const AROUND = {
  "agents/bot.mjs": BOT_AGENT,
  "gateways/telegram.yaml": "type: telegram\nbotTokenEnvVar: TELEGRAM_BOT_TOKEN\n",
  "mcp/hello-tools.mjs": `import { defineToolServer } from "@agentsvc/mcp";\nexport default defineToolServer({ name: "hello-tools", tools: [] });\n`,
};

const EXAMPLES = examples();

/** The verbs `agentsvc --help` lists, by name. */
function helpVerbs(): string[] {
  const help = runBin(["--help"]);
  expect(help.code, help.stderr).toBe(0);
  const commands = help.stdout.slice(help.stdout.indexOf("Commands:"), help.stdout.indexOf("Options:"));
  return [...commands.matchAll(/^ {2}([a-z-]+) /gm)].map((m) => m[1] as string);
}

describe("the READMEs' verb tables, against the built bin's --help", () => {
  it("gives every verb --help lists a row in the root README's CLI reference and the cli README's Verbs table", () => {
    const verbs = helpVerbs();
    expect(verbs).toContain("schedules");
    const root = readFileSync(join(repoRoot, "README.md"), "utf8");
    const reference = root.slice(root.indexOf("## CLI reference"), root.indexOf("## A project"));
    const cli = readFileSync(join(repoRoot, "packages/cli/README.md"), "utf8");
    const table = cli.slice(cli.indexOf("## Verbs"), cli.indexOf("## manifest.json"));
    for (const verb of verbs) {
      expect(reference, `root README row for ${verb}`).toMatch(
        new RegExp(`^\\| \`agentsvc ${verb}[ \`]`, "m"),
      );
      expect(table, `cli README row for ${verb}`).toMatch(new RegExp(`^\\| \`${verb}[ \`]`, "m"));
    }
  });
});

describe("the READMEs' configuration examples, through the built bin's check", () => {
  it("finds the examples (the root README's and every adapter's entry)", () => {
    const where = EXAMPLES.map((e) => `${e.where} ${e.file}`).join("\n");
    for (const expected of [
      /^README\.md:\d+ gateways\/whatsapp\.yaml$/m,
      /^README\.md:\d+ schedules\/morning-digest\.yaml$/m,
      /^README\.md:\d+ agentsvc\.config\.yaml$/m,
      /^packages\/gateway-email\/README\.md:\d+ gateways\/email\.json$/m,
      /^packages\/gateway-teams\/README\.md:\d+ gateways\/teams\.yaml$/m,
      /^packages\/config-schema\/README\.md:\d+ agentsvc\.config\.yaml$/m,
    ]) {
      expect(where).toMatch(expected);
    }
  });

  for (const example of EXAMPLES) {
    it(`${example.where}: ${example.file} validates as written`, async () => {
      const dir = writeFiles(tempDir("agentsvc-readme-"), { ...AROUND, [example.file]: example.text });
      linkAdapters(dir);
      linkPackages(dir, {
        "@agentsvc/gateway-http": "packages/gateway-http",
        "@agentsvc/gateway-matrix": "packages/gateway-matrix",
        "@agentsvc/gateway-mattermost": "packages/gateway-mattermost",
      });
      const r = await runBinAsync(["check", dir]);
      const said = `${relative(repoRoot, dir)}\n${example.text}\n--- stderr\n${r.stderr}`;
      // Warnings are expected (no variable of the example is set); errors are not.
      expect(r.stderr, said).not.toMatch(/^error /m);
      expect(r.code, said).toBe(0);
    }, 60_000);
  }
});
