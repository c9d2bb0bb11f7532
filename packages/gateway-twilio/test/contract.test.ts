import { runGatewayContract } from "@agentsvc/session-core/testing";
import { twilioHarness } from "./harness.js";

runGatewayContract("twilio (Twilio Messaging fake over HTTP)", twilioHarness);
