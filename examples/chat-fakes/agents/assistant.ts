import { defineAgent, defineTool } from "@agentsvc/agent-core";
import * as v from "valibot";

// Needs a human decision: each platform shows Approve/Reject buttons for it.
const sendNote = defineTool({
  name: "send_note",
  description: "Sends a short note to the team.",
  input: v.object({ text: v.pipe(v.string(), v.minLength(1), v.maxLength(500)) }),
  needsApproval: true,
  execute: ({ text }) => ({ sent: true, text }),
});

export default defineAgent({
  name: "chat-fakes",
  // The scripted demo model: offline and deterministic.
  model: { provider: "demo" },
  instructions: "You are a friendly assistant in three chat platforms.",
  tools: [sendNote],
  gatewaySession: { policy: "queue", maxQueueDepth: 50 },
});
