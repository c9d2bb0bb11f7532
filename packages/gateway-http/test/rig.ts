// A real session (RunManager + demo model + ChatDb file) with http gateways served on 127.0.0.1.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { defineAgent, defineTool, RunManager } from "@agentsvc/agent-core";
import { ChatDb } from "@agentsvc/chat-store";
import { createGatewaySession, type GatewaySession, GatewayRegistry } from "@agentsvc/session-core";
import {
  createHttpGateway,
  createHttpGatewayHandler,
  type HttpGateway,
  type HttpGatewayOptions,
} from "../src/index.js";
import { listen, type Server } from "./client.js";

export interface HttpRig {
  base: string;
  db: ChatDb;
  session: GatewaySession;
  gateways: HttpGateway[];
  executed: string[];
  logs: () => { level: number; name?: string; msg?: string }[];
  /** The store folder (pass it to `httpRig` again to restart over the same file). */
  dir: string;
  close(options?: { keep?: boolean }): Promise<void>;
}

export async function httpRig(
  entries: Omit<HttpGatewayOptions, "env">[],
  env: Record<string, string>,
  options: { dir?: string } = {},
): Promise<HttpRig> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "agentsvc-http-"));
  const db = ChatDb.open({ appRoot: dir, path: "chat.db" });
  const executed: string[] = [];
  const agent = defineAgent({
    name: "root",
    model: { provider: "demo" },
    tools: [
      defineTool({
        name: "delete_file",
        description: "Deletes a file (needs approval).",
        input: {
          type: "json-schema",
          schema: { type: "object", properties: { note: { type: "string" } }, required: ["note"] },
        },
        needsApproval: true,
        execute: async (input: { note: string }) => {
          executed.push(input.note);
          return "deleted";
        },
      }),
    ],
  });
  const runs = new RunManager({
    agent,
    memory: db.createMemory({ canSummarize: false }),
    runStore: db.runStore,
    logger: { info() {}, warn() {}, error() {} },
  });
  await runs.ready();
  const registry = new GatewayRegistry();
  const gateways = entries.map((e) => createHttpGateway(e));
  for (const g of gateways) registry.register(g);
  const chunks: string[] = [];
  const destination = new Writable({
    write(c, _e, cb) {
      chunks.push(String(c));
      cb();
    },
  });
  const session = createGatewaySession({
    runs,
    store: db,
    registry,
    agent,
    env,
    entries: entries.map((e) => ({ name: e.name, type: "http" })),
    loggers: { destination },
  });
  await session.start();
  const server: Server = await listen(createHttpGatewayHandler(gateways));
  return {
    base: server.base,
    db,
    session,
    gateways,
    executed,
    dir,
    logs: () =>
      chunks
        .join("")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    close: async ({ keep = false } = {}) => {
      await server.close();
      await session.stop();
      db.close();
      if (!keep) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One polling helper for every package: testkit's (`eventually(check, what, ms)`). */
export { eventually } from "@agentsvc/testkit";
