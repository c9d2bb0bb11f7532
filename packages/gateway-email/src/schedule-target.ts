// What a schedule's `to` may add when it sends to e-mail: the subject of the new message a tick
// composes. The gateway reads it back from the run's origin, `meta.scheduled.subject`.
import { type AdapterScheduleTarget, nonEmptyString } from "@agentsvc/config-schema/adapter";
import * as v from "valibot";

export const scheduleTarget: AdapterScheduleTarget = {
  entries: {
    subject: v.optional(nonEmptyString("the subject of the e-mail a tick composes (email only)")),
  },
  read: ({ subject }) => ({ target: subject === undefined ? {} : { subject } }),
};
