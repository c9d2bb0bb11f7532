import { runGatewayContract } from "@agentsvc/session-core/testing";
import { createCliGateway } from "../src/index.js";
import { terminal } from "./helpers.js";

runGatewayContract("cli", async () => {
  const term = terminal();
  return {
    gateway: () => createCliGateway({ input: term.input, output: term.output }),
    sent: async () => [{ text: term.text() }],
    choose: async (_request, decision) => {
      term.input.write(decision === "approve" ? "A\n" : "R\n\n");
    },
  };
});
