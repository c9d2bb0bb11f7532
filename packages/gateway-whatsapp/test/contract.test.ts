import { runGatewayContract } from "@agentsvc/session-core/testing";
import { whatsappHarness } from "./harness.js";

runGatewayContract("whatsapp (WhatsApp Cloud API fake over HTTP)", whatsappHarness);
