import { runGatewayContract } from "@agentsvc/session-core/testing";
import { matrixHarness } from "./harness.js";

runGatewayContract("matrix", () => matrixHarness());
