// A real IMAP server (Dovecot) and a local SMTP server for the e-mail adapter's tests and doctor's.
export { type Dovecot, dovecotMissing, startDovecot } from "./dovecot.js";
export { type SmtpSink, startSmtpSink } from "./smtp-sink.js";
