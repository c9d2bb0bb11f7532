#!/usr/bin/env node
import module from "node:module";
import { nodeVersionProblem } from "./node-version.js";
import { shareBundledPackages } from "./shared-packages.js";

const tooOld = nodeVersionProblem();
if (tooOld) {
  process.stderr.write(`error ${tooOld}\n`);
  process.exit(1);
}

// Compiled code of every module is cached on disk (os.tmpdir()/node-compile-cache by default;
// NODE_COMPILE_CACHE overrides, NODE_DISABLE_COMPILE_CACHE=1 turns it off): later starts skip parsing.
module.enableCompileCache?.();
// A project's imports of @agentsvc/agent-core and @agentsvc/mcp get the bundle's copy (shared-packages.js).
shareBundledPackages();
// The bundled command (scripts/bundle.mjs), not index.js: the library entry re-exports every verb's dependencies.
const { main } = await import("../dist/bundle/main.js");
process.exitCode = await main(process.argv.slice(2));
