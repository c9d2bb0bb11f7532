import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { type Command, EXIT_FAIL, EXIT_OK } from "../command.js";
import { invokingPackageManager, PM_COMMANDS } from "../package-manager.js";
import { scaffoldFiles } from "../scaffold.js";

export const initCommand: Command = {
  name: "init",
  summary: "Create a runnable project: an agent on the demo model, an agent route and a chat page.",
  args: ["[dir]"],
  options: {},
  details: "dir defaults to the current folder; it must be empty or not exist yet (nothing is overwritten).",
  async run({ positionals, io, print }) {
    const dir = resolve(io.cwd, positionals[0] ?? ".");
    const shown = relative(io.cwd, dir) || ".";
    if (existsSync(dir)) {
      if (!statSync(dir).isDirectory()) {
        print.err(`${print.style("err", "red", "error")} ${shown}: must be a folder (got a file)`);
        return EXIT_FAIL;
      }
      const entries = readdirSync(dir);
      if (entries.length) {
        print.err(
          `${print.style("err", "red", "error")} ${shown}: refusing to write into a non-empty folder (found ${entries.slice(0, 5).join(", ")}${entries.length > 5 ? ", ..." : ""})`,
        );
        return EXIT_FAIL;
      }
    }
    const files = scaffoldFiles(basename(dir));
    for (const [rel, text] of Object.entries(files)) {
      const abs = join(dir, rel);
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, text, { flag: "wx" });
    }
    print.out(`${print.style("out", "green", "created")} ${shown}`);
    for (const rel of Object.keys(files)) print.out(`  ${rel}`);
    print.out("");
    // Commands that work as printed: package.json brings the CLI itself, so `agentsvc` runs locally.
    const pm = PM_COMMANDS[invokingPackageManager(io.env)];
    const rows: [string, string][] = [
      [pm.install, "@agentsvc/cli, @agentsvc/agent-core and valibot (package.json)"],
      [`${pm.exec} dev`, "serve it, restart on edits: http://127.0.0.1:3000/chat/index.html"],
      [`${pm.exec} check`, "validate agents/ and gateways/"],
    ];
    const width = Math.max(...rows.map(([cmd]) => cmd.length));
    print.out("Next:");
    if (shown !== ".") print.out(`  cd ${shown}`);
    for (const [cmd, what] of rows)
      print.out(`  ${cmd.padEnd(width)}  ${print.style("out", "dim", `# ${what}`)}`);
    return EXIT_OK;
  },
};
