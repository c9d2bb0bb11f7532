#!/usr/bin/env node
import module from "node:module";
import { nodeVersionProblem } from "./node-version.js";
import { loadScriptBundle } from "./script-bundle.js";
import { shareBundledPackages } from "./shared-packages.js";

const tooOld = nodeVersionProblem();
if (tooOld) {
  process.stderr.write(`error ${tooOld}\n`);
  process.exit(1);
}

// Compiled code of every module is cached on disk (os.tmpdir()/node-compile-cache by default;
// NODE_COMPILE_CACHE overrides, NODE_DISABLE_COMPILE_CACHE=1 turns it off): later starts skip parsing.
module.enableCompileCache?.();
// `start` runs the command as one script with a code cache made after a start ran (script-bundle.js);
// the other verbs, short-lived, load the ES module bundle (scripts/bundle.mjs), not index.js: the
// library entry re-exports every verb's dependencies.
const script = process.argv[2] === "start" ? loadScriptBundle() : undefined;
// A project's imports of @agentsvc/agent-core and @agentsvc/mcp get the command's copy (shared-packages.js).
shareBundledPackages(script !== undefined);
const { main } = script ?? (await import("../dist/bundle/main.js"));
process.exitCode = await main(process.argv.slice(2), script ? { startedIdle: script.whenIdle } : {});
