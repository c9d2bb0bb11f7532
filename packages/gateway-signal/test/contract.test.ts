import { runGatewayContract } from "@agentsvc/session-core/testing";
import { signalHarness } from "./harness.js";

runGatewayContract("signal", () => signalHarness());
