import { type Command, type CommandContext, EXIT_FAIL, EXIT_OK, EXIT_USAGE } from "../command.js";

/** Reads one line without echo on a terminal, or all of piped stdin. */
async function readPassword(ctx: CommandContext): Promise<string> {
  const stdin = ctx.io.stdin ?? process.stdin;
  if (stdin.isTTY && stdin.setRawMode) {
    ctx.io.stderr.write("Password: ");
    stdin.setRawMode(true);
    return new Promise((resolve, reject) => {
      let typed = "";
      const onData = (data: Buffer | string) => {
        for (const ch of data.toString()) {
          if (ch === "\r" || ch === "\n") return finish(() => resolve(typed));
          if (ch === "\u0003") return finish(() => reject(new Error("cancelled")));
          if (ch === "\u007f") typed = typed.slice(0, -1);
          else typed += ch;
        }
      };
      const finish = (then: () => void) => {
        stdin.removeListener("data", onData);
        stdin.setRawMode?.(false);
        stdin.pause();
        ctx.io.stderr.write("\n");
        then();
      };
      stdin.on("data", onData);
      stdin.resume();
    });
  }
  let text = "";
  for await (const chunk of stdin) text += chunk.toString();
  // One trailing newline is the line ending of `echo` or a file, not part of the password.
  return text.replace(/\r?\n$/, "");
}

export const hashPasswordCommand: Command = {
  name: "hash-password",
  summary: "Print a PBKDF2-HMAC-SHA256 hash for a webui account's passwordHash.",
  args: [],
  options: {
    password: {
      type: "string",
      value: "<PASSWORD>",
      description: "the password (else a hidden prompt, or stdin)",
    },
    iterations: { type: "string", value: "<n>", description: "PBKDF2 iterations (default 600000)" },
  },
  details:
    "Without --password it asks without echo on a terminal, or reads stdin, so the password need not\nsit in shell history. Output: pbkdf2$<iterations>$<salt>$<digest>",
  async run(ctx) {
    const { values, print } = ctx;
    const iterations = typeof values.iterations === "string" ? Number(values.iterations) : undefined;
    if (iterations !== undefined && (!Number.isInteger(iterations) || iterations < 1)) {
      print.err(
        `${print.style("err", "red", "error")} --iterations: expected a positive integer (got "${values.iterations}")`,
      );
      return EXIT_USAGE;
    }
    let password: string;
    try {
      password = typeof values.password === "string" ? values.password : await readPassword(ctx);
    } catch (err) {
      print.err(`${print.style("err", "red", "error")} ${(err as Error).message}`);
      return EXIT_FAIL;
    }
    if (password.length === 0) {
      print.err(`${print.style("err", "red", "error")} the password is empty`);
      return EXIT_USAGE;
    }
    const { hashPassword } = await import("@agentsvc/chat-store");
    print.out(await hashPassword(password, iterations ? { iterations } : {}));
    return EXIT_OK;
  },
};
