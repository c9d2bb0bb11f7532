import type { ToolContext } from "@agentsvc/agent-core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";

export interface RemoteServerOptions {
  url: URL;
  headers: Record<string, string>;
  /** Per tool call and per connect; the SDK's own default (60 s) is too short for slow tools. */
  requestTimeoutMs: number;
  connectTimeoutMs: number;
}

const CLIENT_INFO = { name: "agentsvc", version: "0.1.0" };
const MAX_LIST_PAGES = 100;

/**
 * One MCP client connection to a remote server. When the server forgets the session (404, e.g.
 * after its idle timeout or a restart) the next call opens a new session and retries once.
 */
export class RemoteServer {
  #client: Client | undefined;
  #reconnecting: Promise<Client> | undefined;
  #closed = false;

  constructor(readonly options: RemoteServerOptions) {}

  /** Where it points, without credentials or query (safe for error messages and logs). */
  get displayUrl(): string {
    return `${this.options.url.origin}${this.options.url.pathname}`;
  }

  async connect(): Promise<void> {
    this.#client = await this.#open();
  }

  async listTools(): Promise<Tool[]> {
    const client = this.#requireClient();
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const result = await client.listTools(cursor ? { cursor } : undefined, {
        timeout: this.options.requestTimeoutMs,
      });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    ctx: Pick<ToolContext, "signal">,
  ): Promise<CallToolResult> {
    const call = (client: Client) =>
      client.callTool({ name, arguments: args }, undefined, {
        signal: ctx.signal,
        timeout: this.options.requestTimeoutMs,
      }) as Promise<CallToolResult>;
    const client = this.#requireClient();
    try {
      return await call(client);
    } catch (error) {
      if (!(error instanceof StreamableHTTPError && error.code === 404) || this.#closed) throw error;
      return call(await this.#reopen(client));
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    if (!client) return;
    const transport = client.transport as StreamableHTTPClientTransport | undefined;
    // Be polite (DELETE ends the server's session) but never let a dead server hold up shutdown.
    await Promise.race([transport?.terminateSession().catch(() => undefined), delay(2000)]);
    await client.close().catch(() => undefined);
  }

  async #open(): Promise<Client> {
    const client = new Client(CLIENT_INFO);
    const transport = new StreamableHTTPClientTransport(this.options.url, {
      requestInit: { headers: this.options.headers },
    });
    await client.connect(transport, { timeout: this.options.connectTimeoutMs });
    return client;
  }

  // Single-flight: concurrent calls that all saw the 404 share one new session.
  #reopen(stale: Client): Promise<Client> {
    if (this.#client !== stale && this.#client) return Promise.resolve(this.#client);
    this.#reconnecting ??= (async () => {
      try {
        await stale.close().catch(() => undefined);
        const fresh = await this.#open();
        if (this.#closed) {
          await fresh.close().catch(() => undefined);
          throw new Error(`MCP server at ${this.displayUrl}: connection was closed`);
        }
        this.#client = fresh;
        return fresh;
      } finally {
        this.#reconnecting = undefined;
      }
    })();
    return this.#reconnecting;
  }

  #requireClient(): Client {
    if (!this.#client)
      throw new Error(`MCP server at ${this.displayUrl}: not connected (closed or never connected)`);
    return this.#client;
  }
}

/** Text of a tool result: text parts joined by newlines; other parts are named, not dropped silently. */
export function resultText(result: CallToolResult): string {
  const parts: string[] = [];
  for (const item of result.content ?? []) {
    if (item.type === "text") parts.push(item.text);
    else if (item.type === "resource" && "text" in item.resource) parts.push(item.resource.text);
    else if (item.type === "resource") parts.push(`[resource ${item.resource.uri}]`);
    else if (item.type === "resource_link") parts.push(`[resource ${item.uri}]`);
    else parts.push(`[${item.type} ${item.mimeType}]`);
  }
  if (parts.length === 0 && result.structuredContent !== undefined)
    return JSON.stringify(result.structuredContent);
  return parts.join("\n");
}

/** The HTTP status the server answered with, when the error is one. */
export function httpStatus(error: unknown): number | undefined {
  return error instanceof StreamableHTTPError && error.code !== undefined && error.code > 0
    ? error.code
    : undefined;
}

export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error instanceof StreamableHTTPError && error.code !== undefined && error.code > 0) {
    return `HTTP ${error.code}: ${jsonRpcMessage(error.message) ?? error.message}`;
  }
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return `${error.message} (${typeof code === "string" ? code : cause.message})`;
  }
  return error.message;
}

// The SDK puts the whole response body in its message; a JSON-RPC error's own message reads better.
function jsonRpcMessage(text: string): string | undefined {
  const start = text.indexOf("{");
  if (start < 0) return undefined;
  try {
    const body = JSON.parse(text.slice(start)) as { error?: { message?: unknown } };
    return typeof body.error?.message === "string" ? body.error.message : undefined;
  } catch {
    return undefined;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
