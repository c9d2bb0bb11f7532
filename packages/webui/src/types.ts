import type { AgentDescription, AttachmentRef } from "@agentsvc/agent-core";
import type { MediaConfig } from "@agentsvc/config-schema";
import type { Context } from "hono";

/** Who is acting. Every user-scoped action keys off `userId`; it never comes from a request body. */
export interface Identity {
  userId: string;
  displayName?: string;
}

/** Replaces the built-in identity resolution (sessions / shared workspace). `null` means signed out (401). */
export type IdentityResolver = (c: Context) => Promise<Identity | null>;

/** The part of the resolved webui exposure (config-schema `WebuiExposure`) ChatUi reads. */
export interface ChatUiEntry {
  path: string;
  entryName?: string;
  file?: string;
  apiKeyEnvVar?: string;
  /** Declared accounts: their presence turns the sign-in gate on (seeded into the store at boot). */
  users?: readonly unknown[];
  /** What the page may upload (config-schema's `media` block); absent: no uploads. */
  media?: MediaConfig;
}

export interface ToolInfo {
  name: string;
  description: string;
  needsApproval: boolean;
  inputSchema: unknown;
}

export interface AgentInfo {
  name: string;
  modelName: string;
  demoModel: boolean;
  tools: ToolInfo[];
  /** True only when the agent's memory has a summary provider and model. */
  canCompact: boolean;
}

/** The page's view of an agent, from what its RunManager describes. */
export function agentInfoOf(described: AgentDescription): AgentInfo {
  return {
    name: described.agentName,
    modelName: described.modelName,
    demoModel: described.demoModel,
    tools: described.tools,
    canCompact: described.canSummarize,
  };
}

export type HonoEnv = { Variables: { identity: Identity; attachments?: AttachmentRef[] } };
