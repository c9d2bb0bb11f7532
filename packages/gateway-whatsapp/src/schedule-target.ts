// What a schedule's `to` may add when it sends to WhatsApp: the approved template its reply goes in
// (outside the 24-hour window only a template reaches the person). template.ts reads it back from
// the run's origin, `meta.scheduled.template`.
import { type AdapterScheduleTarget, nonEmptyString } from "@agentsvc/config-schema/adapter";
import * as v from "valibot";

export const scheduleTarget: AdapterScheduleTarget = {
  entries: {
    templateName: v.optional(
      nonEmptyString("an approved WhatsApp message template the reply is sent in (whatsapp only)"),
    ),
    templateLanguage: v.optional(
      nonEmptyString("the approved template's language code, such as en_US (whatsapp only)"),
    ),
  },
  read({ templateName, templateLanguage }) {
    if (templateName === undefined && templateLanguage === undefined) return { target: {} };
    if (templateName === undefined || templateLanguage === undefined)
      return {
        issue: {
          key: templateName === undefined ? "templateName" : "templateLanguage",
          message:
            "templateName and templateLanguage go together (the approved template's name and its language code, such as en_US)",
        },
      };
    return { target: { template: { name: templateName, language: templateLanguage } } };
  },
};
