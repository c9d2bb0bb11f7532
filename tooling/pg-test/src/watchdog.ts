// A test server must not outlive the process that started it: a test run killed mid-file (SIGKILL,
// SIGPIPE, a CI timeout) runs none of its own code, so nothing in it can stop the server. Each server
// gets a watchdog instead: a shell holding the read end of a pipe from this process. The kernel
// closes the write end when this process ends, however it ends; the shell's `read` then returns and
// it stops the server (pg_ctl's immediate mode: no wait for the dead process's connections) and
// deletes the server's folder. In a session of its own and deaf to INT, TERM and HUP, so a signal
// to the test's process group does not end the watchdog before the pipe closes.
import { type ChildProcess, spawn } from "node:child_process";

// A server still starting when its owner died may not have written its pid file yet, and pg_ctl
// stops only a server it finds by that file (deleting the folder would not end the server): wait
// for the file a while first (a start that failed leaves none: then the wait is all it costs).
const SCRIPT = [
  `dir=$1; pid=$2; shift 2; trap '' INT TERM HUP; read -r _ || :`,
  `n=0; while [ ! -f "$pid" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done`,
  `"$@" >/dev/null 2>&1; rm -rf "$dir"`,
].join("\n");

export interface Watchdog {
  /** The owner stopped the server itself: the watchdog ends without doing anything. */
  release(): void;
}

/**
 * Watches this process for the server whose folder is `dir` and pid file `pidFile`; `stop` is the
 * command (program, arguments) that stops it.
 */
export function watchServer(dir: string, pidFile: string, stop: [string, string[]]): Watchdog {
  const args = ["-c", SCRIPT, "pg-test-watchdog", dir, pidFile, stop[0], ...stop[1]];
  const child: ChildProcess = spawn("/bin/sh", args, {
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
