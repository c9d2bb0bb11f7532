import { resolve } from "node:path";
import type { Project } from "@agentsvc/config-schema";
import { type Command, EXIT_FAIL, EXIT_OK } from "../command.js";
import { missingAdapterErrors, unsetEntryVars } from "../gateway-needs.js";
import { missingProviderErrors } from "../model-needs.js";
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
    "dir defaults to the current folder. Exit code 1 when there is any error. A gateway entry whose adapter\npackage, or a model whose provider package, is not installed is an error (all are listed, with one\ninstall command). A model whose API-key\nvariable, a postgres datasource whose URL variable, or an entry whose *EnvVar variable is unset is a\nwarning here (start fails on a required one).",
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
    // And every model provider package the agents' models need (google, azure, ...).
    const providers = result.ok ? await missingProviderErrors(result.project) : { errors: [] };
    const missing = [...adapters.errors, ...providers.errors];
    await printIssues(print, result.ok ? missing : result.errors, [...result.warnings, ...keys], dir);
    if (adapters.install) print.err(`Install them: ${adapters.install}`);
    if (providers.install) print.err(`Install the model providers: ${providers.install}`);
    if (!result.ok || missing.length) return EXIT_FAIL;
    print.out(`${print.style("out", "green", "ok")} ${summarize(result.project)}`);
    return EXIT_OK;
  },
};
