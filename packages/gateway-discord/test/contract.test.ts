import { runGatewayContract } from "@agentsvc/session-core/testing";
import { discordHarness } from "./harness.js";

runGatewayContract("discord", () => discordHarness());
