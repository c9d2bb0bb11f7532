import { type ChildProcess, spawn } from "node:child_process";
import { type FSWatcher, watch } from "node:fs";
import { join, resolve, sep } from "node:path";
import { type Command, EXIT_FAIL, EXIT_OK, EXIT_PORT } from "../command.js";
import { packageRoot } from "../package-root.js";

const BIN = join(packageRoot(), "bin", "agentsvc.js");
// Output of the service itself: watching it would restart forever.
const IGNORED = [".agentsvc", "data", "node_modules", ".git"];

function ignored(file: string): boolean {
  const first = file.split(sep)[0] ?? "";
  return IGNORED.includes(first) || file.endsWith(".db-journal") || /\.db(-wal|-shm)?$/.test(file);
}

export const devCommand: Command = {
  name: "dev",
  summary: "Run `agentsvc start` and restart it whenever a project file changes.",
  args: ["[dir]"],
  options: {
    port: { type: "string", short: "p", value: "<port>", description: "passed to start" },
    host: { type: "string", value: "<host>", description: "passed to start" },
    "log-format": { type: "string", value: "<pretty|json>", description: "passed to start" },
  },
  details: `The service runs in a child process, so agents and tools are loaded fresh on every restart.\nIgnored: ${IGNORED.join(", ")} and SQLite files. Ctrl-C stops both.`,
  async run({ values, positionals, io, print }) {
    const dir = resolve(io.cwd, positionals[0] ?? ".");
    const args = [BIN, "start", dir];
    if (typeof values.port === "string") args.push("--port", values.port);
    if (typeof values.host === "string") args.push("--host", values.host);
    if (typeof values["log-format"] === "string") args.push("--log-format", values["log-format"]);

    let child: ChildProcess | undefined;
    let timer: NodeJS.Timeout | undefined;
    let launch = () => {};
    const stopChild = () =>
      new Promise<void>((done) => {
        const current = child;
        if (!current || current.exitCode !== null || current.signalCode !== null) return done();
        current.once("exit", () => done());
        current.kill("SIGTERM");
      });
    const restart = (file: string) => {
      clearTimeout(timer);
      timer = setTimeout(async () => {
        print.out(`${print.style("out", "dim", "dev")} ${file} changed, restarting`);
        await stopChild();
        launch();
      }, 200);
    };

    const watcher: FSWatcher = watch(dir, { recursive: true }, (_event, file) => {
      if (file && !ignored(file.toString())) restart(file.toString());
    });
    return new Promise<number>((done) => {
      const end = async (code: number) => {
        watcher.close();
        clearTimeout(timer);
        process.off("SIGINT", quit);
        process.off("SIGTERM", quit);
        await stopChild();
        done(code);
      };
      const quit = () => end(EXIT_OK);
      launch = () => {
        const current = spawn(process.execPath, args, { stdio: "inherit", env: io.env as NodeJS.ProcessEnv });
        child = current;
        // The child printed why; no edit of the project frees the port, so stop rather than wait.
        current.once("exit", (code) => {
          if (code !== EXIT_PORT || child !== current) return;
          print.err(`${print.style("err", "dim", "dev")} stopped: the service cannot listen`);
          void end(EXIT_FAIL);
        });
      };
      process.once("SIGINT", quit);
      process.once("SIGTERM", quit);
      launch();
    });
  },
};
