// A local SMTP server (the `smtp-server` package) on a submission-style port: STARTTLS, then a login, keeping every
// accepted mail parsed. It can refuse the next message with a temporary error, or go away.
import type { ParsedMail } from "mailparser";
import type { SMTPServer } from "smtp-server";

export interface SmtpSink {
  port: number;
  user: string;
  pass: string;
  mails: ParsedMail[];
  /** The next message gets this temporary SMTP answer (421 or 451). */
  failNext(code: number): void;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startSmtpSink(tls: { key: string; cert: string }): Promise<SmtpSink> {
  // The first start binds port 0 (no window for another process to take a port chosen earlier);
  // a restart binds the same port again.
  let port = 0;
  const user = "bot@example.test";
  const pass = "smtp-secret";
  const mails: ParsedMail[] = [];
  const failures: number[] = [];
  let server: SMTPServer | undefined;
  // Loaded here, not with the module: the package's index exports this, and most files importing
  // it need no SMTP server (the two packages were about 180 of the index's 400 ms CPU to import).
  const [{ simpleParser }, { SMTPServer }] = await Promise.all([import("mailparser"), import("smtp-server")]);
  const start = async () => {
    server = new SMTPServer({
      secure: false,
      key: tls.key,
      cert: tls.cert,
      logger: false,
      authMethods: ["PLAIN", "LOGIN"],
      onAuth(auth, _session, done) {
        if (auth.username === user && auth.password === pass) return done(null, { user });
        return done(new Error("Invalid username or password"));
      },
      onData(stream, _session, done) {
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", () => {
          const code = failures.shift();
          if (code !== undefined) {
            const err = Object.assign(new Error("Temporary failure, try again later"), {
              responseCode: code,
            });
            return done(err);
          }
          simpleParser(Buffer.concat(chunks)).then((mail) => {
            mails.push(mail);
            done();
          }, done);
        });
      },
    });
    const s = server;
    await new Promise<void>((resolve, reject) => {
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => resolve());
    });
    port = (s.server.address() as { port: number }).port;
  };
  const stop = async () => {
    const s = server;
    server = undefined;
    if (s) await new Promise<void>((r) => s.close(() => r()));
  };
  await start();
  return { port, user, pass, mails, failNext: (code) => failures.push(code), stop, start, close: stop };
}
