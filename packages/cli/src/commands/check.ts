import { resolve } from "node:path";
import type { Project } from "@agentsvc/config-schema";
import { type Command, EXIT_FAIL, EXIT_OK } from "../command.js";
import { missingAdapterErrors, unsetEntryVars } from "../gateway-needs.js";
import { printIssues } from "../report.js";

export function summarize(project: Project): string {
  const n = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;
  return [
    `root agent ${project.rootAgent.name}`,
    n(project.agents.length, "agent"),
    n(project.toolServers.length, "tool server"),
    n(project.exposures.length, "exposure"),
    n(project.channels.length + project.pushGateways.length, "gateway"),
  ].join(", ");
}

export const checkCommand: Command = {
  name: "check",
  summary: "Validate a project and print every error and warning, each with its file and key.",
  args: ["[dir]"],
  options: {},
  details:
    "dir defaults to the current folder. Exit code 1 when there is any error. A gateway entry whose adapter\npackage is not installed is an error (all are listed, with one install command). A model whose API-key\nvariable, a postgres datasource whose URL variable, or an entry whose *EnvVar variable is unset is a\nwarning here (start fails on a required one).",
  async run({ positionals, io, print }) {
    const dir = resolve(io.cwd, positionals[0] ?? ".");
    const { loadProject, missingDatasourceEnv, missingModelKeys } = await import("@agentsvc/config-schema");
    const result = await loadProject(dir);
    // A model key or a database URL that is unset here is a warning: check may run where secrets are absent.
    const keys = result.ok
      ? [
          ...missingDatasourceEnv(result.project, io.env),
          ...missingModelKeys(result.project, io.env),
          ...unsetEntryVars(result.project, io.env),
        ]
      : [];
    // Every missing adapter package at once (start would name one per run), with one install command.
    const adapters = result.ok ? await missingAdapterErrors(result.project) : { errors: [] };
    await printIssues(print, result.ok ? adapters.errors : result.errors, [...result.warnings, ...keys], dir);
    if (adapters.install) print.err(`Install them: ${adapters.install}`);
    if (!result.ok || adapters.errors.length) return EXIT_FAIL;
    print.out(`${print.style("out", "green", "ok")} ${summarize(result.project)}`);
    return EXIT_OK;
  },
};
