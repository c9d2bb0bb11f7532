// A test server must not outlive the process that started it: a test run killed mid-file (SIGKILL,
// SIGPIPE, a CI timeout) runs none of its own code, so nothing in it can stop the server. Each server
// gets a watchdog instead: a shell holding the read end of a pipe from this process. The kernel
// closes the write end when this process ends, however it ends; the shell's `read` then returns and
// it stops the server (pg_ctl's immediate mode: no wait for the dead process's connections) and
// deletes the server's folder. In a session of its own and deaf to INT, TERM and HUP, so a signal
// to the test's process group does not end the watchdog before the pipe closes.
import { type ChildProcess, spawn } from "node:child_process";

const SCRIPT = `dir=$1; shift; trap '' INT TERM HUP; read -r _ || :; "$@" >/dev/null 2>&1; rm -rf "$dir"`;

export interface Watchdog {
  /** The owner stopped the server itself: the watchdog ends without doing anything. */
  release(): void;
}

/** Watches this process for `dir`'s server; `stop` is the command (program, arguments) that stops it. */
export function watchServer(dir: string, stop: [string, string[]]): Watchdog {
  const child: ChildProcess = spawn("/bin/sh", ["-c", SCRIPT, "pg-test-watchdog", dir, stop[0], ...stop[1]], {
    stdio: ["pipe", "ignore", "ignore"],
    detached: true,
  });
  // A server without its watchdog still serves the tests; only a killed run would leave it behind.
  child.once("error", () => {});
  // Neither the watchdog nor its pipe keeps this process alive.
  child.unref();
  (child.stdin as { unref?: () => void } | null)?.unref?.();
  return {
    release() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}
