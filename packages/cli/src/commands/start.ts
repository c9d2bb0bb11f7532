import { resolve } from "node:path";
import { type Command, EXIT_FAIL, EXIT_PORT, EXIT_USAGE } from "../command.js";
import { useColor } from "../io.js";
import { gatewayLines } from "../gateway-banner.js";
import { trimHeapWhenIdle } from "../idle-trim.js";
import { missingAdapterErrors } from "../gateway-needs.js";
import { printIssues } from "../report.js";
import { writeServiceFile } from "../service-file.js";

/** No request for this long after start: the start's heap is given back. */
const IDLE_TRIM_MS = 1000;
const LOG_FORMATS = ["pretty", "json"] as const;
// Listen failures no edit of the project fixes (server listenError keeps the code).
const PORT_ERRORS = new Set(["EADDRINUSE", "EACCES", "EADDRNOTAVAIL"]);

export const startCommand: Command = {
  name: "start",
  summary: "Validate a project, build its pages and serve every exposure and gateway.",
  args: ["[dir]"],
  options: {
    port: {
      type: "string",
      short: "p",
      value: "<port>",
      description: "port (default: PORT, else config port, else 3000)",
    },
    host: {
      type: "string",
      value: "<host>",
      description: "address to listen on (default: HOST, else 127.0.0.1)",
    },
    "log-format": {
      type: "string",
      value: "<pretty|json>",
      description: "log lines (default: pretty on a terminal, JSON when piped)",
    },
  },
  details:
    "Environment variables named by *EnvVar keys are read once, now; LOG_LEVEL sets the log level (default info).\nSIGTERM or SIGINT stops accepting connections, lets running turns finish (up to 10 s) and closes the\nstores; a second signal exits at once.",
  async run({ values, positionals, io, print }) {
    const dir = resolve(io.cwd, positionals[0] ?? ".");
    const port = typeof values.port === "string" ? Number(values.port) : undefined;
    const fail = (text: string) => print.err(`${print.style("err", "red", "error")} ${text}`);
    if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
      fail(`--port: expected an integer 0-65535 (got "${values.port}")`);
      return EXIT_USAGE;
    }
    const format = values["log-format"];
    if (format !== undefined && !LOG_FORMATS.includes(format as (typeof LOG_FORMATS)[number])) {
      fail(`--log-format: expected pretty or json (got "${format}")`);
      return EXIT_USAGE;
    }
    // Loaded here, not at the top: `agentsvc --help` and the other verbs never load the server.
    const { datasourceUrlUnset, isPostgresDatasource, loadProject, missingDatasourceEnv } = await import(
      "@agentsvc/config-schema"
    );
    // A restart reads its YAML files' data as the last start parsed them (unchanged files only).
    const loaded = await loadProject(dir, { yamlCache: true });
    await printIssues(print, loaded.ok ? [] : loaded.errors, loaded.warnings, dir);
    if (!loaded.ok) return EXIT_FAIL;
    // A postgres datasource without its connection string: fail before anything is created on disk.
    const unset = missingDatasourceEnv(loaded.project, io.env);
    for (const w of unset) {
      const name = w.path?.split(".")[1] ?? "";
      const ds = loaded.project.config.datasources[name];
      if (isPostgresDatasource(ds))
        fail(`cannot start: ${w.file}: ${w.path}: ${datasourceUrlUnset(name, ds)}`);
    }
    if (unset.length) return EXIT_FAIL;
    // Every missing adapter package at once, with one install command, as check lists them (the
    // server would stop at the first); `dev` runs this verb, so it says the same.
    const adapters = await missingAdapterErrors(loaded.project);
    if (adapters.errors.length) {
      await printIssues(print, adapters.errors, [], dir);
      if (adapters.install)
        print.err(`Install ${adapters.errors.length === 1 ? "it" : "them"}: ${adapters.install}`);
      return EXIT_FAIL;
    }
    const { createLogger, shutdownOnSignals, startServer } = await import("@agentsvc/server");
    let server: Awaited<ReturnType<typeof startServer>>;
    let logger: Awaited<ReturnType<typeof createLogger>>;
    try {
      logger = await createLogger({
        env: io.env as NodeJS.ProcessEnv,
        color: useColor(io.stdout, io.env),
        format: (format as (typeof LOG_FORMATS)[number] | undefined) ?? (io.stdout.isTTY ? "pretty" : "json"),
      });
      server = await startServer(loaded.project, {
        env: io.env as NodeJS.ProcessEnv,
        logger,
        ...(port !== undefined ? { port } : {}),
        ...(typeof values.host === "string" ? { host: values.host } : {}),
      });
    } catch (err) {
      fail(`cannot start: ${(err as Error).message}`);
      return PORT_ERRORS.has(String((err as { code?: unknown }).code)) ? EXIT_PORT : EXIT_FAIL;
    }
    // Before the "listening" line: a supervisor that stops us as soon as it reads it gets a clean stop.
    shutdownOnSignals(server, (msg) => print.err(msg));
    print.out(`${print.style("out", "green", "listening")} ${server.url} (port ${server.port})`);
    // Where doctor finds this service (its gateways' ages); removed at exit.
    writeServiceFile(dir, server.url);
    // Kept only once serving: a start that failed leaves no .agentsvc/ behind.
    loaded.saveYamlCache();
    for (const e of loaded.project.exposures) {
      const where = e.exposes === "webui" ? `${e.path}/index.html` : e.path;
      print.out(`  ${e.exposes.padEnd(6)} ${server.url}${where}`);
    }
    for (const line of gatewayLines(server.gateways, loaded.project.config.publicBaseUrl ?? server.url)) {
      print.out(line);
    }
    // The heap start grew, given back once the service is idle (idle-trim.ts).
    trimHeapWhenIdle(
      IDLE_TRIM_MS,
      (trim) => logger.debug(trim, "heap trimmed after start (idle)"),
      io.startedIdle,
    );
    // Serve until a signal ends the process.
    return new Promise<number>(() => {});
  },
};
