// A reply's file as signal-cli takes it over JSON-RPC: an RFC 2397 data URI with the file name as a
// `filename` parameter, `data:<MIME-TYPE>;filename=<FILENAME>;base64,<BASE64 ENCODED DATA>`
// (signal-cli(1) send `--attachment`, https://github.com/AsamK/signal-cli/blob/master/man/signal-cli.1.adoc).
// signal-cli URL-decodes parameter values (RFC 2397: parameter values are URL-escaped), so the name
// is percent-encoded: a `;`, `,` or `=` in it cannot end the parameter or the header early.

/** The data URI of one attachment. */
export function attachmentDataUri(contentType: string, name: string, bytes: Uint8Array): string {
  const type = /^[\w.+-]+\/[\w.+-]+$/.test(contentType) ? contentType : "application/octet-stream";
  const filename = name ? `;filename=${encodeURIComponent(name)}` : "";
  return `data:${type}${filename};base64,${Buffer.from(bytes).toString("base64")}`;
}
