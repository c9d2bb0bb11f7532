export { main } from "./main.js";
export {
  type Command,
  type CommandContext,
  commandHelp,
  EXIT_FAIL,
  EXIT_OK,
  EXIT_USAGE,
  type OptionSpec,
  runCommand,
} from "./command.js";
export { commands } from "./commands/index.js";
export { type BuildOptions, type BuildResult, buildProject, DEFAULT_OUT } from "./commands/build.js";
export { type BuildStep, buildSteps, registerBuildStep } from "./build-steps.js";
export { MANIFEST_VERSION, projectManifest } from "./manifest.js";
export { type CliIO, type OutStream, type Printer, printer, useColor } from "./io.js";
export { scaffoldFiles } from "./scaffold.js";
export { CLI_VERSION } from "./version.js";
export type { Project } from "@agentsvc/config-schema";
