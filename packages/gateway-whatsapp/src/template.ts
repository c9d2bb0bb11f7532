// A scheduled reply in an approved message template. Outside a person's 24-hour customer service
// window Meta delivers only templates (https://developers.facebook.com/docs/whatsapp/cloud-api/guides/send-message-templates);
// a schedule names its template (`to.templateName`, `to.templateLanguage`) and the reply becomes the
// template's body parameter {{1}}. Meta's template rules
// (https://developers.facebook.com/docs/whatsapp/message-templates/guidelines): a body of at most
// 1024 characters with no newlines, tabs or more than four spaces in a row, so the reply is
// flattened and cut into parameters that leave the template's own words room.

export interface TemplateRef {
  name: string;
  language: string;
}

/** Characters of the reply per template message (the rest of the 1024 is the template's own text). */
const PARAMETER_MAX = 900;

/** The template a scheduled run's origin names (`meta.scheduled.template`), if any. */
export function templateOf(meta: Record<string, unknown> | undefined): TemplateRef | undefined {
  const t = (meta?.scheduled as { template?: unknown } | undefined)?.template as
    | Partial<TemplateRef>
    | undefined;
  return typeof t?.name === "string" && typeof t.language === "string"
    ? { name: t.name, language: t.language }
    : undefined;
}

/** The reply as body parameters: one line, runs of spaces kept under five, cut at word ends. */
export function templateParameters(text: string): string[] {
  const flat = text
    .replace(/\s*[\r\n\t]+\s*/g, " ")
    .replace(/ {4,}/g, "   ")
    .trim();
  const out: string[] = [];
  let rest = flat;
  while (rest.length > PARAMETER_MAX) {
    const cut = rest.lastIndexOf(" ", PARAMETER_MAX);
    const at = cut > PARAMETER_MAX / 2 ? cut : PARAMETER_MAX;
    out.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest) out.push(rest);
  return out;
}

/** The Graph message body of one template message with one body parameter. */
export function templateMessage(template: TemplateRef, parameter: string): Record<string, unknown> {
  return {
    type: "template",
    template: {
      name: template.name,
      language: { code: template.language },
      components: [{ type: "body", parameters: [{ type: "text", text: parameter }] }],
    },
  };
}
