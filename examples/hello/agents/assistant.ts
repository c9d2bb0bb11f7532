import { defineAgent, defineTool } from "@agentsvc/agent-core";
import * as v from "valibot";

const clock = defineTool({
  name: "clock",
  description: "Tells the current time in UTC.",
  input: v.object({}),
  execute: () => ({ utc: new Date().toISOString() }),
});

// Needs a human decision before it runs: the run suspends and the page shows Approve/Reject.
const sendNote = defineTool({
  name: "send_note",
  description: "Sends a short note to the team.",
  input: v.object({ text: v.pipe(v.string(), v.minLength(1), v.maxLength(500)) }),
  needsApproval: true,
  execute: ({ text }) => ({ sent: true, text }),
});

export default defineAgent({
  name: "hello",
  // The scripted demo model: offline, deterministic, and labelled as a demo everywhere it shows.
  model: { provider: "demo", tokenDelayMs: 12 },
  instructions: "You are a friendly assistant. Use tools when they help.",
  tools: [clock, sendNote],
  toolServers: ["hello-tools"],
  memory: { type: "database", summaryProvider: "demo", summaryModel: "agentsvc-demo", summaryThreshold: 200 },
  gatewaySession: { policy: "queue", maxQueueDepth: 50 },
});
