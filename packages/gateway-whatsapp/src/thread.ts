// A WhatsApp thread is one user: their phone number (wa_id) when Meta shares it, else their
// business-scoped user id (BSUID, `CC.` + up to 128 alphanumerics, e.g. `US.13491208655302741918`,
// or a parent BSUID `US.ENT.…`). Meta addresses the first with `to` and the second with `recipient`.

const BSUID = /^[A-Z]{2}\.(ENT\.)?[A-Za-z0-9]{1,128}$/;

/** The address fields of a messages call for `thread`. */
export function addressOf(thread: string): { to: string } | { recipient: string } {
  return BSUID.test(thread) ? { recipient: thread } : { to: thread };
}
