// `agentsvc doctor` for an email entry: an IMAP login (imapflow, logged out at once) and SMTP EHLO +
// AUTH (nodemailer's verify(): greeting, EHLO, STARTTLS, AUTH; no mail sent). TLS as the adapter
// uses it: IMAP 143 STARTTLS, any other port implicit TLS; SMTP 465 implicit TLS, others STARTTLS
// required. Facts:
//   IMAP LOGIN / AUTHENTICATIONFAILED: RFC 9051 section 6.2.3, RFC 5530 section 3
//   SMTP AUTH 535 "authentication credentials invalid": RFC 4954 section 6
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { AdapterDoctor, DoctorResult as CheckResult } from "@agentsvc/config-schema/adapter";
import type { EmailEntry } from "./schema.js";

type Env = Record<string, string | undefined>;
const TIMEOUT_MS = 10_000;

interface Login {
  host: string;
  port: number;
  user: string;
  pass: string;
  /** Which variables hold the user and password (named in the fix). */
  userVar: string;
  passVar: string;
  hostVar: string;
}

/** The variables of one side (IMAP or SMTP), or the name of the first unset one. */
function login(env: Env, port: number, vars: { host: string; user: string; pass: string }): Login | string {
  for (const name of [vars.host, vars.user, vars.pass]) if (!env[name]?.trim()) return name;
  return {
    host: env[vars.host] as string,
    port,
    user: env[vars.user] as string,
    pass: env[vars.pass] as string,
    hostVar: vars.host,
    userVar: vars.user,
    passVar: vars.pass,
  };
}

/** A certificate the client refused: the code Node gives it, else undefined. */
function certificateCode(err: unknown): string | undefined {
  const e = err as { code?: string; originalCode?: string; cause?: { code?: string } };
  return [e.code, e.originalCode, e.cause?.code].find(
    (c) => typeof c === "string" && /CERT|SELF_SIGNED|UNABLE_TO_(VERIFY|GET_ISSUER)/.test(c),
  );
}

function networkFailure(check: string, l: Login, err: unknown): CheckResult {
  const cert = certificateCode(err);
  const e = err as { code?: string; message?: string };
  return {
    check,
    status: "failed",
    detail: `${l.host}:${l.port}: ${cert ?? e.code ?? e.message ?? String(err)}`,
    fix: cert
      ? "the server certificate was not accepted: set tlsCaFile in the entry to the PEM file of the CA that signed it"
      : `nothing answered as a mail server at ${l.host}:${l.port}: check ${l.hostVar} and the entry's port`,
  };
}

async function imap(l: Login, ca: Buffer | undefined): Promise<CheckResult> {
  const check = "email IMAP login";
  const { ImapFlow } = await import("imapflow");
  const client = new ImapFlow({
    host: l.host,
    port: l.port,
    secure: l.port !== 143,
    doSTARTTLS: l.port === 143 ? true : undefined,
    auth: { user: l.user, pass: l.pass },
    logger: false,
    ...(ca ? { tls: { ca } } : {}),
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
  });
  // Without a listener a socket error after connect() would end the process.
  client.on("error", () => {});
  try {
    await client.connect();
    await client.logout().catch(() => {});
    return { check, status: "ok", detail: `${l.user} at ${l.host}:${l.port}` };
  } catch (err) {
    client.close();
    const e = err as { authenticationFailed?: boolean; serverResponseCode?: string; responseText?: string };
    if (!e.authenticationFailed) return networkFailure(check, l, err);
    const said = [e.serverResponseCode, e.responseText].filter(Boolean).join(" ");
    return {
      check,
      status: "failed",
      detail: `${l.user} at ${l.host}:${l.port}: ${said || "login refused"}`,
      fix:
        e.serverResponseCode === "UNAVAILABLE"
          ? "the server cannot check logins now (UNAVAILABLE): try again later"
          : `the server refused ${l.userVar} / ${l.passVar}: put the mailbox's user name and (app) password in them`,
    };
  }
}

async function smtp(l: Login, ca: Buffer | undefined): Promise<CheckResult> {
  const check = "email SMTP EHLO + AUTH";
  const { default: nodemailer } = await import("nodemailer");
  const transport = nodemailer.createTransport({
    host: l.host,
    port: l.port,
    secure: l.port === 465,
    requireTLS: l.port !== 465,
    auth: { user: l.user, pass: l.pass },
    ...(ca ? { tls: { ca } } : {}),
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
  });
  try {
    await transport.verify();
    return { check, status: "ok", detail: `${l.user} at ${l.host}:${l.port}` };
  } catch (err) {
    const e = err as { responseCode?: number; response?: string };
    if (e.responseCode === undefined) return networkFailure(check, l, err);
    return {
      check,
      status: "failed",
      detail: `${l.user} at ${l.host}:${l.port}: ${e.response ?? e.responseCode}`,
      fix:
        e.responseCode === 535
          ? `the server refused ${l.userVar} / ${l.passVar}: put the SMTP user name and (app) password in them`
          : `the SMTP server answered ${e.responseCode}: check that it offers AUTH after STARTTLS on port ${l.port}`,
    };
  } finally {
    transport.close();
  }
}

/** IMAP login, then SMTP EHLO + AUTH, with the entry's variables (SMTP ones default to IMAP's). */
export const doctor: AdapterDoctor = async (raw, { env, projectDir }) => {
  const entry = raw as unknown as EmailEntry;
  let ca: Buffer | undefined;
  if (entry.tlsCaFile) {
    try {
      ca = await readFile(resolve(projectDir, entry.tlsCaFile));
    } catch (err) {
      return [
        {
          check: "email tlsCaFile",
          status: "failed",
          detail: `cannot read ${entry.tlsCaFile} (${(err as { code?: string }).code ?? String(err)})`,
          fix: "tlsCaFile must name the PEM file of the CA that signed the IMAP and SMTP certificates",
        },
      ];
    }
  }
  const out: CheckResult[] = [];
  const sides = [
    {
      check: "email IMAP login",
      run: imap,
      port: entry.imapPort,
      vars: { host: entry.imapHostEnvVar, user: entry.imapUsernameEnvVar, pass: entry.imapPasswordEnvVar },
    },
    {
      check: "email SMTP EHLO + AUTH",
      run: smtp,
      port: entry.smtpPort,
      vars: {
        host: entry.smtpHostEnvVar ?? entry.imapHostEnvVar,
        user: entry.smtpUsernameEnvVar ?? entry.imapUsernameEnvVar,
        pass: entry.smtpPasswordEnvVar ?? entry.imapPasswordEnvVar,
      },
    },
  ];
  for (const side of sides) {
    const l = login(env, side.port, side.vars);
    out.push(
      typeof l === "string"
        ? {
            check: side.check,
            status: "failed",
            detail: `${l} is not set`,
            fix: `set ${l} in the service's environment`,
          }
        : await side.run(l, ca),
    );
  }
  return out;
};
