import { runGatewayContract } from "@agentsvc/session-core/testing";
import { mattermostHarness } from "./harness.js";

runGatewayContract("mattermost", () => mattermostHarness());
runGatewayContract("mattermost with buttons", () => mattermostHarness({}, { buttons: true }));
