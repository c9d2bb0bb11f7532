import { resolve } from "node:path";
import { loadProject } from "@agentsvc/config-schema";
import { shutdownOnSignals, startServer } from "@agentsvc/server";
import { type Command, EXIT_FAIL, EXIT_USAGE } from "../command.js";
import { printIssues } from "../report.js";

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
  },
  details:
    "Environment variables named by *EnvVar keys are read once, now. SIGTERM or SIGINT stops accepting\nconnections, lets running turns finish (up to 10 s) and closes the stores; a second signal exits at once.",
  async run({ values, positionals, io, print }) {
    const dir = resolve(io.cwd, positionals[0] ?? ".");
    const port = typeof values.port === "string" ? Number(values.port) : undefined;
    if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
      print.err(
        `${print.style("err", "red", "error")} --port: expected an integer 0-65535 (got "${values.port}")`,
      );
      return EXIT_USAGE;
    }
    const loaded = await loadProject(dir);
    printIssues(print, loaded.ok ? [] : loaded.errors, loaded.warnings);
    if (!loaded.ok) return EXIT_FAIL;
    let server: Awaited<ReturnType<typeof startServer>>;
    try {
      server = await startServer(loaded.project, {
        env: io.env as NodeJS.ProcessEnv,
        ...(port !== undefined ? { port } : {}),
        ...(typeof values.host === "string" ? { host: values.host } : {}),
      });
    } catch (err) {
      print.err(`${print.style("err", "red", "error")} cannot start: ${(err as Error).message}`);
      return EXIT_FAIL;
    }
    print.out(`${print.style("out", "green", "listening")} ${server.url}`);
    for (const e of loaded.project.exposures) {
      const where = e.exposes === "webui" ? `${e.path}/index.html` : e.path;
      print.out(`  ${e.exposes.padEnd(6)} ${server.url}${where}`);
    }
    shutdownOnSignals(server, (msg) => print.err(msg));
    // Serve until a signal ends the process.
    return new Promise<number>(() => {});
  },
};
