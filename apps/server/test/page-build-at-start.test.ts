// The chat page is built at start (a page that cannot be built fails it) and written to the build
// folder while the service starts and serves: no answer waits on that write (#45).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Project, WebuiExposure } from "@agentsvc/config-schema";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/index.js";
import { helloProject } from "./hello-server.js";

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.shutdown();
  server = undefined;
});

/** The project with its chat page entry changed by `change`. */
const withPage = (project: Project, change: Partial<WebuiExposure>): Project => ({
  ...project,
  exposures: project.exposures.map((e) => (e.exposes === "webui" ? { ...e, ...change } : e)),
});

describe("the chat page at start", () => {
  it("a page that cannot be built (an image icon with a script URL) fails the start", async () => {
    const project = withPage(await helloProject(), { icon: { kind: "image", src: "javascript:alert(1)" } });
    await expect(startServer(project, { port: 0, logger: pino({ level: "silent" }) })).rejects.toThrow(
      /icon/i,
    );
  });

  it("is written to the build folder, the file the page serves, by the time shutdown ends", async () => {
    const project = await helloProject();
    server = await startServer(project, { port: 0, logger: pino({ level: "silent" }) });
    const served = await (await fetch(`${server.url}/chat/index.html`)).text();
    await server.shutdown();
    server = undefined;
    expect(readFileSync(join(project.root, ".agentsvc/build/chat/index.html"), "utf8")).toBe(served);
  });

  it("a build folder that cannot be written is logged, and the page is served all the same", async () => {
    const project = await helloProject();
    // A file where the folder would be: mkdir fails (as root, permissions would not stop it).
    const blocked = join(project.root, "not-a-folder");
    writeFileSync(blocked, "");
    const lines: string[] = [];
    const logger = pino({ level: "error" }, { write: (line: string) => void lines.push(line) });
    server = await startServer(project, { port: 0, logger, buildDir: join(blocked, "build") });
    const res = await fetch(`${server.url}/chat/index.html`, { headers: { "accept-encoding": "br" } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("<html");
    await server.shutdown();
    server = undefined;
    expect(existsSync(join(blocked, "build"))).toBe(false);
    const logged = lines.map((l) => JSON.parse(l) as { msg: string; file: string });
    expect(logged.find((l) => /could not write the built chat page/.test(l.msg))?.file).toBe(
      join(blocked, "build/chat/index.html"),
    );
  });
});
