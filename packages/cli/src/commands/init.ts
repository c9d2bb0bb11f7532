import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { type Command, EXIT_FAIL, EXIT_OK } from "../command.js";
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
    print.out("Next:");
    if (shown !== ".") print.out(`  cd ${shown}`);
    print.out("  npm install");
    print.out("  npx agentsvc check");
    return EXIT_OK;
  },
};
