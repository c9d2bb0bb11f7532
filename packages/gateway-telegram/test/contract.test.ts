import { runGatewayContract } from "@agentsvc/session-core/testing";
import { telegramHarness } from "./harness.js";

runGatewayContract("telegram", () => telegramHarness());
