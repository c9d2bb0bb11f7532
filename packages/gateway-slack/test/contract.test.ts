import { runGatewayContract } from "@agentsvc/session-core/testing";
import { slackHarness } from "./harness.js";

runGatewayContract("slack", () => slackHarness());
