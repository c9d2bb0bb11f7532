// A real Dovecot IMAP server for the tests: its own config, passwd-file users, Maildir homes and a
// throwaway self-signed certificate (SAN 127.0.0.1), listening with implicit TLS on a free
// 127.0.0.1 port. Started with `dovecot -F`, stopped with SIGTERM on that one process (closed with
// SIGKILL).
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { randomBytes } from "node:crypto";
import { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as tlsConnect } from "node:tls";
import { freePort } from "../server.js";

const BINARY = ["/usr/sbin/dovecot", "/usr/local/sbin/dovecot"].find((p) => existsSync(p));

/** Why the Dovecot tests cannot run here, or undefined when they can. */
export const dovecotMissing: string | undefined = BINARY
  ? undefined
  : "the dovecot binary is not installed (apt-get install dovecot-imapd); .ci/run installs it";

export interface Dovecot {
  port: number;
  /** PEM of the self-signed certificate (trust it as the CA). */
  cert: string;
  key: string;
  /** A fresh mail user of the pool written before start (Dovecot rereads its passwd-file only on a newer mtime). */
  takeUser(): { user: string; pass: string };
  /** Stops the server (connections refused) and starts it again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

// A P-256 key: an RSA-2048 one took 0.1-0.3 CPU-s and 1.5-3.5 s at load 30 to generate, in a
// synchronous call that held the test's thread, at every start (about 20 a run); P-256 takes ~5 ms.
function selfSignedCert(dir: string): { cert: string; key: string } {
  const keyPath = join(dir, "key.pem");
  const certPath = join(dir, "cert.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1,DNS:localhost",
      "-keyout",
      keyPath,
      "-out",
      certPath,
    ],
    { stdio: "ignore" },
  );
  return { cert: readText(certPath), key: readText(keyPath) };
}

const readText = (path: string) => readFileSync(path, "utf8");

export async function startDovecot(): Promise<Dovecot> {
  if (!BINARY) throw new Error(dovecotMissing);
  const binary = BINARY;
  const dir = mkdtempSync(join(tmpdir(), "agentsvc-dovecot-"));
  chmodSync(dir, 0o755);
  const { cert, key } = selfSignedCert(dir);
  const root = process.getuid?.() === 0;
  // As root, mail belongs to `nobody` (Dovecot refuses uid 0 for mail); otherwise to the caller.
  const uid = root ? 65534 : (process.getuid?.() ?? 1000);
  const gid = root ? 65534 : (process.getgid?.() ?? 1000);
  const me = root ? "" : execFileSync("id", ["-un"]).toString().trim();
  const homes = join(dir, "home");
  mkdirSync(homes);
  if (root) chownSync(homes, uid, gid);
  const users = join(dir, "users");
  const salt = randomBytes(4).toString("hex");
  const pool = Array.from({ length: 80 }, (_, i) => ({ user: `bot${i + 1}`, pass: `pw-${i + 1}-${salt}` }));
  writeFileSync(users, pool.map((u) => `${u.user}:{PLAIN}${u.pass}\n`).join(""));
  const writeConfig = (port: number) =>
    writeFileSync(
      join(dir, "dovecot.conf"),
      `protocols = imap
listen = 127.0.0.1
base_dir = ${dir}/run
state_dir = ${dir}/state
instance_name = agentsvc-test-${port}
log_path = ${dir}/dovecot.log
ssl = required
ssl_cert = <${dir}/cert.pem
ssl_key = <${dir}/key.pem
auth_mechanisms = plain login
auth_failure_delay = 0
first_valid_uid = ${Math.min(uid, 100)}
${root ? "" : `default_internal_user = ${me}\ndefault_login_user = ${me}\ndefault_internal_group = ${me}`}
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${users}
}
userdb {
  driver = static
  args = uid=${uid} gid=${gid} home=${homes}/%u
}
mail_location = maildir:~/Maildir
service imap-login {
  inet_listener imap {
    port = 0
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = ${port}
    ssl = yes
  }
}
`,
    );
  let child: ChildProcess | undefined;
  let port = 0;
  /**
   * Ready means this Dovecot greets over TLS with this certificate: a port that merely accepts may
   * belong to another test's server that took it between freePort() and Dovecot's bind.
   */
  const start = async () => {
    const running = spawn(binary, ["-F", "-c", join(dir, "dovecot.conf")], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    child = running;
    let stderr = "";
    running.stderr?.on("data", (d) => {
      stderr += String(d);
    });
    const deadline = Date.now() + 10_000;
    while (!(await greets(port, cert))) {
      if (running.exitCode !== null || Date.now() > deadline) {
        const log = existsSync(join(dir, "dovecot.log")) ? readText(join(dir, "dovecot.log")) : "";
        if (running.exitCode === null) running.kill("SIGKILL");
        throw new DovecotStartError(`dovecot did not start on port ${port}: ${stderr}\n${log}`, stderr + log);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  // The first start picks a free port; if another process bound it first, pick another.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    writeConfig(port);
    try {
      await start();
      break;
    } catch (err) {
      const taken = err instanceof DovecotStartError && /address already in use/i.test(err.output);
      if (!taken || attempt === 5) throw err;
    }
  }
  const end = async (signal: NodeJS.Signals) => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((r) => running.once("exit", r));
    running.kill(signal);
    await exited;
    // The listener is gone once the master exits; wait until connections are refused.
    while (await accepts(port)) await new Promise((r) => setTimeout(r, 20));
  };
  // A stop mid-test is Dovecot's own shutdown (it says BYE to its clients), which takes its master
  // about a second. A close ends it for good, so the master is killed: its processes see it gone
  // and exit (0.01-0.05 s in all), at each of about 45 closes a run.
  const stop = () => end("SIGTERM");
  return {
    port,
    cert,
    key,
    takeUser() {
      const next = pool.shift();
      if (!next) throw new Error("the test Dovecot's user pool is used up");
      return next;
    },
    stop,
    start,
    async close() {
      await end("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

class DovecotStartError extends Error {
  readonly output: string;
  constructor(message: string, output: string) {
    super(message);
    this.output = output;
  }
}

/** Whether an IMAPS server trusting `ca` answers on the port with an IMAP greeting. */
function greets(port: number, ca: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tlsConnect({ host: "127.0.0.1", port, ca, timeout: 2_000 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once("data", (d) => done(String(d).startsWith("* OK")));
    socket.once("error", () => done(false));
    socket.once("timeout", () => done(false));
    socket.once("end", () => done(false));
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.connect(port, "127.0.0.1");
  });
}
