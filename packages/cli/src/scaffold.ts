import { CLI_VERSION } from "./version.js";

// Version range of the @agentsvc runtime packages a new project depends on.
const AGENTSVC_RANGE = "^0.1.0";

const SCHEMA_LINE =
  "# yaml-language-server: $schema=../node_modules/@agentsvc/config-schema/schema/gateway-entry.schema.json";

/** npm package name from a folder name: lower case, only the characters npm allows. */
export function packageNameFor(folder: string): string {
  const name = folder
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[._-]+|[-]+$/g, "");
  return name || "agentsvc-app";
}

/** Files of a new project, keyed by path relative to the project folder. */
export function scaffoldFiles(folderName: string): Record<string, string> {
  const name = packageNameFor(folderName);
  const pkg = {
    name,
    version: "0.1.0",
    private: true,
    type: "module",
    engines: { node: ">=22.14" },
    scripts: {
      check: "agentsvc check .",
      build: "agentsvc build .",
      dev: "agentsvc dev .",
      start: "agentsvc start .",
    },
    dependencies: {
      "@agentsvc/agent-core": AGENTSVC_RANGE,
      "@agentsvc/cli": `^${CLI_VERSION}`,
      valibot: "^1.1.0",
    },
    // Installed only so editors find the gateway-entry JSON Schema (see gateways/*.yaml).
    devDependencies: { "@agentsvc/config-schema": AGENTSVC_RANGE },
    // better-sqlite3 ships prebuilt binaries and says `gypfile: false`, yet npm 11's install-script
    // review and pnpm 10's build approval infer `node-gyp rebuild` from its binding.gyp and ask about
    // it (npm at every later install, pnpm at the first). Denied for both, so neither builds it nor
    // asks (a platform without a prebuild builds it by hand: README "Native module").
    allowScripts: { "better-sqlite3": false },
    pnpm: { ignoredBuiltDependencies: ["better-sqlite3"] },
  };
  return {
    "package.json": `${JSON.stringify(pkg, null, 2)}\n`,
    "agents/assistant.ts": `import { defineAgent, defineTool } from "@agentsvc/agent-core";
import * as v from "valibot";

// A tool: the model calls it with input checked against the valibot schema.
const add = defineTool({
  name: "add",
  description: "Adds two numbers.",
  input: v.object({ a: v.number(), b: v.number() }),
  execute: ({ a, b }) => ({ sum: a + b }),
});

export default defineAgent({
  name: "assistant",
  // The scripted demo model runs offline. Swap in e.g.
  // { provider: "openai", model: "gpt-4o-mini", apiKeyEnvVar: "OPENAI_API_KEY" }.
  model: { provider: "demo" },
  instructions: "You are a helpful assistant. Use the add tool for arithmetic.",
  tools: [add],
});
`,
    "gateways/agent.yaml": `${SCHEMA_LINE}
# The agent over HTTP: POST /agent/invoke, /agent/stream, /agent/batch and GET /agent/info.
# Every caller that sends no "conversationId" shares the "default" conversation and its memory:
# send your own, e.g. {"input": "hi", "conversationId": "customer-4711"}.
exposes: agent
path: /agent
`,
    "gateways/web.yaml": `${SCHEMA_LINE}
# The browser chat page at /chat/index.html, its API under /chat/api.
exposes: webui
path: /chat
title: ${name}
# The demo model only repeats what it is told and calls the add tool: say so until a real model is set.
welcome: 'This agent runs on the offline demo model: it adds two numbers (try "add 17 and 25") and otherwise repeats what you write. Set a real model in agents/assistant.ts for real answers.'
# theme:
#   accent: 4f46e5      # hex written bare, without #
#   dark:
#     accent: 818cf8
`,
    "README.md": `# ${name}

An [agentsvc](https://www.npmjs.com/package/@agentsvc/cli) project.

\`\`\`sh
npm install
npx agentsvc check    # validate agents/ and gateways/
npx agentsvc dev      # run it; open http://127.0.0.1:3000/chat/index.html
\`\`\`

- \`agents/assistant.ts\`: the agent (demo model, one \`add\` tool).
- \`gateways/agent.yaml\`: the agent route at \`/agent\`.
- \`gateways/web.yaml\`: the chat page at \`/chat\`.

Secrets are never written in these files: keys ending in \`EnvVar\` name an environment variable
that is read when the server starts.
`,
    ".gitignore": "node_modules/\n.agentsvc/\ndata/\n",
  };
}
