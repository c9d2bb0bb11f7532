// The platform keys of a `type: email` entry; agentsvc adds the common ones (approvals, access, media).
import { envVarName, integerIn, nonEmptyString } from "@agentsvc/config-schema/adapter";
import * as v from "valibot";

export const EMAIL_DEFAULTS = { imapPort: 993, pollIntervalSeconds: 60, smtpPort: 465, mailbox: "INBOX" };

export const entrySchema = {
  imapHostEnvVar: envVarName,
  imapUsernameEnvVar: envVarName,
  imapPasswordEnvVar: envVarName,
  fromAddressEnvVar: envVarName,
  imapPort: v.optional(integerIn(1, 65535, "IMAP port"), EMAIL_DEFAULTS.imapPort),
  pollIntervalSeconds: v.optional(
    integerIn(1, 86_400, "seconds between IMAP polls"),
    EMAIL_DEFAULTS.pollIntervalSeconds,
  ),
  // Outbound SMTP: each defaults to the matching IMAP value (one account for both).
  smtpHostEnvVar: v.optional(envVarName),
  smtpUsernameEnvVar: v.optional(envVarName),
  smtpPasswordEnvVar: v.optional(envVarName),
  smtpPort: v.optional(
    integerIn(1, 65535, "SMTP port (465 implicit TLS, others STARTTLS)"),
    EMAIL_DEFAULTS.smtpPort,
  ),
  // RFC 8601 authserv-ids whose Authentication-Results decide whether a reply may approve.
  trustedAuthservIds: v.optional(
    v.array(
      v.pipe(
        v.string("must be a string such as mx.google.com"),
        v.regex(
          /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
          "must be the authserv-id the receiving mail server writes first in Authentication-Results (a host name such as mx.google.com)",
        ),
      ),
      "must be a list of authserv-ids (host names such as mx.google.com)",
    ),
  ),
  // The receiving server writes its results right below its own Received line (Gmail, Postfix with
  // OpenDKIM/OpenDMARC) for every mail and removes incoming ones naming it.
  authResultsBelowReceived: v.optional(v.boolean("must be true or false")),
  // A private CA for both IMAP and SMTP (PEM), relative to the project folder.
  tlsCaFile: v.optional(
    nonEmptyString("PEM file of the CA that signed the IMAP and SMTP server certificates"),
  ),
};

export type EmailEntry = v.InferOutput<v.ObjectSchema<typeof entrySchema, undefined>>;
