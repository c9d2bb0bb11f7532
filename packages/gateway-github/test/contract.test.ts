import { runGatewayContract } from "@agentsvc/session-core/testing";
import { githubHarness } from "./harness.js";

runGatewayContract("github (GitHub REST + webhook fake over HTTP)", githubHarness);
