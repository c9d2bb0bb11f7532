import type { ToolDefinition, ToolServerRef } from "@agentsvc/agent-core";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AnyToolDefinition, ToolServerDefinition } from "./define-tool-server.js";
import type { RemoteServer, resultText } from "./remote-server.js";

export interface ResolveToolServersOptions {
  /** Local tool servers by declared name (the `mcp/` entries). */
  local: Map<string, ToolServerDefinition>;
  /** Where `apiKeyEnvVar` values are read (normally `process.env`, read at start-up). */
  env: Record<string, string | undefined>;
  /** Named in error messages: `agent "support": toolServers[1]: ...`. */
  agentName?: string;
  /** Bound on one remote tool call. Default 5 minutes. */
  requestTimeoutMs?: number;
  /** Bound on connecting (initialize + tools/list) to one remote server. Default 15 s. */
  connectTimeoutMs?: number;
}

export interface ResolvedToolServers {
  /** Local tools as declared, remote tools as JSON-schema tools calling the server. */
  tools: AnyToolDefinition[];
  /** Ends the remote sessions. Remote tools fail after this. */
  close(): Promise<void>;
}

type RemoteRef = Exclude<ToolServerRef, string>;

/**
 * Turns an agent's `toolServers` into tools: a string names a local tool server, an object a
 * remote MCP server over Streamable HTTP. Remote servers are connected now (all at once); any
 * failure closes what was opened and throws naming the ref and the URL.
 */
export async function resolveToolServers(
  refs: readonly ToolServerRef[],
  options: ResolveToolServersOptions,
): Promise<ResolvedToolServers> {
  const prefix = options.agentName ? `agent "${options.agentName}": ` : "";
  const label = (i: number) => `${prefix}toolServers[${i}]`;
  const remotes: RemoteServer[] = [];
  const closeAll = () => Promise.all(remotes.map((r) => r.close())).then(() => undefined);

  // Everything checkable without the network first, so a typo never costs a connect.
  const plans = refs.map((ref, i) => planRef(ref, label(i), options));
  const groups = await Promise.allSettled(
    plans.map(async (plan) => {
      if (plan.kind === "local")
        return { label: plan.label, source: `tool server "${plan.server.name}"`, tools: plan.server.tools };
      // The SDK client loads only for a remote server.
      const client = await import("./remote-server.js");
      const remote = new client.RemoteServer(plan.remote);
      remotes.push(remote);
      let listed: Tool[];
      try {
        await remote.connect();
        listed = await remote.listTools();
      } catch (error) {
        throw new Error(
          `${plan.label}: could not connect to the MCP server at ${remote.displayUrl}: ${client.describeError(error)}${keyHint(client.httpStatus(error), plan.ref, plan.label)}`,
          {
            cause: error,
          },
        );
      }
      return {
        label: plan.label,
        source: `MCP server at ${remote.displayUrl}`,
        tools: remoteTools(remote, client.resultText, listed, plan.ref, plan.label),
      };
    }),
  );

  const failed = groups.find((g) => g.status === "rejected");
  if (failed) {
    await closeAll();
    throw failed.reason;
  }

  const tools: AnyToolDefinition[] = [];
  const owner = new Map<string, string>();
  for (const group of groups) {
    if (group.status !== "fulfilled") continue;
    for (const tool of group.value.tools) {
      const earlier = owner.get(tool.name);
      if (earlier) {
        await closeAll();
        throw new Error(
          `${group.value.label}: tool "${tool.name}" from ${group.value.source} has the same name as a tool from ${earlier}; each tool name must be unique across an agent's tool servers`,
        );
      }
      owner.set(tool.name, `${group.value.source} (${group.value.label})`);
      tools.push(tool);
    }
  }
  return { tools, close: closeAll };
}

type Plan =
  | { kind: "local"; label: string; server: ToolServerDefinition }
  | {
      kind: "remote";
      label: string;
      ref: RemoteRef;
      remote: ConstructorParameters<typeof RemoteServer>[0];
    };

function planRef(ref: ToolServerRef, label: string, options: ResolveToolServersOptions): Plan {
  if (typeof ref === "string") {
    const server = options.local.get(ref);
    if (!server) {
      const known = [...options.local.keys()].map((n) => `"${n}"`).join(", ") || "none";
      throw new Error(
        `${label}: expected the declared name of a tool server under mcp/ (got "${ref}"; declared: ${known})`,
      );
    }
    return { kind: "local", label, server };
  }
  if (typeof ref !== "object" || ref === null || typeof ref.url !== "string") {
    throw new Error(
      `${label}: expected a local tool server name or { url, ... } (got ${JSON.stringify(ref)})`,
    );
  }
  let url: URL;
  try {
    url = new URL(ref.url);
  } catch {
    throw new Error(`${label}.url: expected an absolute http(s) URL (got ${JSON.stringify(ref.url)})`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`${label}.url: expected an http(s) URL (got protocol "${url.protocol}")`);
  }
  const headers: Record<string, string> = { ...(ref.headers ?? {}) };
  if (ref.apiKeyEnvVar !== undefined) {
    const key = options.env[ref.apiKeyEnvVar];
    if (!key) {
      throw new Error(
        `${label}.apiKeyEnvVar: environment variable ${ref.apiKeyEnvVar} is not set (needed for the MCP server at ${url.origin}${url.pathname})`,
      );
    }
    headers.authorization = `Bearer ${key}`;
  }
  return {
    kind: "remote",
    label,
    ref,
    remote: {
      url,
      headers,
      requestTimeoutMs: options.requestTimeoutMs ?? 5 * 60_000,
      connectTimeoutMs: options.connectTimeoutMs ?? 15_000,
    },
  };
}

function remoteTools(
  remote: RemoteServer,
  textOf: typeof resultText,
  listed: Tool[],
  ref: RemoteRef,
  label: string,
): AnyToolDefinition[] {
  const approval = ref.needsApproval;
  if (Array.isArray(approval)) {
    // A misspelt name here would silently skip an approval: refuse to start instead.
    const names = new Set(listed.map((t) => t.name));
    const missing = approval.filter((n) => !names.has(n));
    if (missing.length > 0) {
      throw new Error(
        `${label}.needsApproval: expected tool names of the MCP server at ${remote.displayUrl} (got ${missing.map((n) => `"${n}"`).join(", ")}; it has: ${[...names].join(", ") || "none"})`,
      );
    }
  }
  return listed.map((tool): ToolDefinition<Record<string, unknown>, string> => {
    const needsApproval = approval === true || (Array.isArray(approval) && approval.includes(tool.name));
    return {
      kind: "tool",
      name: tool.name,
      description: tool.description ?? tool.title ?? "",
      input: { type: "json-schema", schema: tool.inputSchema as Record<string, unknown> },
      ...(needsApproval ? { needsApproval: true } : {}),
      async execute(input, ctx) {
        if (typeof input !== "object" || input === null || Array.isArray(input)) {
          throw new Error(`tool "${tool.name}" expects an object of arguments`);
        }
        const result = await remote.callTool(tool.name, input, ctx);
        const text = textOf(result);
        // The run loop reports a thrown error as a tool error the model can read.
        if (result.isError)
          throw new Error(text || `tool "${tool.name}" failed on the MCP server at ${remote.displayUrl}`);
        return text;
      },
    };
  });
}

/** What to check when the server refused the key (or its absence): the variable or the missing key. */
function keyHint(status: number | undefined, ref: RemoteRef, label: string): string {
  if (status !== 401 && status !== 403) return "";
  return ref.apiKeyEnvVar !== undefined
    ? ` (the key sent is ${ref.apiKeyEnvVar}'s value: check it against the server's)`
    : ` (no key sent: set ${label}.apiKeyEnvVar to the environment variable holding the server's key)`;
}
