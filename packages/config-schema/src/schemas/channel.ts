import * as v from "valibot";
import { envVarName, gatewayEntryCommon, httpUrl, strict } from "./common.js";

export const CHANNEL_TYPES = ["mock", "cli", "http"] as const;

export const mockChannelSchema = strict({ type: v.literal("mock", "must be mock") }, "a mock channel");
export const cliChannelSchema = strict(
  { type: v.literal("cli", "must be cli"), ...gatewayEntryCommon },
  "a cli channel",
);
export const httpChannelSchema = strict(
  {
    type: v.literal("http", "must be http"),
    ...gatewayEntryCommon,
    secretEnvVar: envVarName,
    callbackUrl: v.optional(httpUrl("URL every reply and approval request is also POSTed to, signed")),
  },
  "an http channel",
);
