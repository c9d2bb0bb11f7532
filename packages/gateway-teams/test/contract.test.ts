import { runGatewayContract } from "@agentsvc/session-core/testing";
import { teamsHarness } from "./harness.js";

runGatewayContract("teams (Bot Framework fake over HTTP)", teamsHarness);
