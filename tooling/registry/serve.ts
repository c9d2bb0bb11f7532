// `pnpm registry`: packs every public package of this checkout (`pnpm build` first) and serves the
// tarballs as a private npm registry on 127.0.0.1 at a fixed port, so a project outside the
// workspace can be made and installed the way a user would once the packages are published.
// Only the @agentsvc scope is served; everything else still comes from the public registry.
//
//   pnpm registry                 # port 4873; pnpm registry --port N for another
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startLocalRegistry } from "./local-registry.ts";
import { packAll } from "./pack.ts";

const { values } = parseArgs({ options: { port: { type: "string" } } });
const port = Number(values.port ?? 4873);
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error(`registry: --port must be a port number (got ${values.port})`);
  process.exit(2);
}

const tarballs = mkdtempSync(join(tmpdir(), "agentsvc-registry-"));
console.log("registry: packing the public packages ...");
let packed: { name: string }[];
try {
  packed = await packAll(tarballs);
} catch (err) {
  console.error(`registry: ${(err as Error).message}`);
  rmSync(tarballs, { recursive: true, force: true });
  process.exit(1);
}

let registry: Awaited<ReturnType<typeof startLocalRegistry>>;
try {
  registry = await startLocalRegistry(tarballs, { port, freshPath: false });
} catch (err) {
  const busy = (err as NodeJS.ErrnoException).code === "EADDRINUSE";
  console.error(
    busy
      ? `registry: port ${port} is in use (another registry, e.g. Verdaccio?): pass --port N`
      : `registry: ${(err as Error).message}`,
  );
  rmSync(tarballs, { recursive: true, force: true });
  process.exit(1);
}

const url = registry.url;
console.log(`registry: ${packed.length} packages at ${url} (Ctrl-C to stop)

A new project:
  npx --yes --@agentsvc:registry=${url} @agentsvc/cli init my-agent
  cd my-agent
  echo "@agentsvc:registry=${url}" > .npmrc
  npm install
  npx agentsvc dev

Or in an existing project's .npmrc (npm, pnpm and yarn 1 read it):
  @agentsvc:registry=${url}

After a rebuild, run this again: it repacks. The versions stay the same, so a project installed
before needs \`rm -rf node_modules package-lock.json && npm install\` to take the new tarballs.`);

const stop = async () => {
  await registry.close();
  rmSync(tarballs, { recursive: true, force: true });
  process.exit(0);
};
process.once("SIGINT", () => void stop());
process.once("SIGTERM", () => void stop());
