// A private npm registry on 127.0.0.1 serving packed tarballs, the way a company registry would:
// npm asks it for `@agentsvc/*` packuments (its `.npmrc` scope line points there) and everything
// else still comes from the public registry. It records which packages npm asked for.
import { createHash, randomUUID } from "node:crypto";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

export interface LocalRegistry {
  url: string;
  /** Package names npm requested a packument or tarball for, in order. */
  requested: string[];
  close(): Promise<void>;
}

interface Published {
  manifest: Record<string, unknown> & { name: string; version: string };
  file: string;
  integrity: string;
  shasum: string;
}

function readPacked(file: string): Published {
  const bytes = readFileSync(file);
  const manifest = JSON.parse(
    execFileSync("tar", ["-xzOf", file, "package/package.json"], { encoding: "utf8" }),
  );
  return {
    manifest,
    file,
    integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
    shasum: createHash("sha1").update(bytes).digest("hex"),
  };
}

export interface RegistryOptions {
  /** Default 0 (any free port). */
  port?: number;
  /**
   * A fresh path per run (the default) keeps npm's cache, keyed by URL, from serving an earlier
   * run's packuments on a reused port; `false` serves at the root (a stable `.npmrc` line).
   */
  freshPath?: boolean;
}

export async function startLocalRegistry(
  tarballDir: string,
  options: RegistryOptions = {},
): Promise<LocalRegistry> {
  const byName = new Map<string, Published>();
  for (const name of readdirSync(tarballDir).filter((f) => f.endsWith(".tgz"))) {
    const packed = readPacked(join(tarballDir, name));
    byName.set(packed.manifest.name, packed);
  }
  const requested: string[] = [];
  const prefix = options.freshPath === false ? "" : `/run-${randomUUID()}`;
  let base = "";
  const server: Server = createServer((req, res) => {
    const raw = decodeURIComponent((req.url ?? "/").split("?")[0] ?? "/");
    const path = raw.startsWith(`${prefix}/`) ? raw.slice(prefix.length) : "/";
    const tarball = /^\/-\/(.+)\/-\/[^/]+\.tgz$/.exec(path);
    const name = tarball ? tarball[1] : path.slice(1);
    const packed = name ? byName.get(name) : undefined;
    if (name) requested.push(name);
    if (!packed) {
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
      return;
    }
    if (tarball) {
      res.writeHead(200, { "content-type": "application/octet-stream" }).end(readFileSync(packed.file));
      return;
    }
    const { name: pkg, version } = packed.manifest;
    const doc = {
      _id: pkg,
      name: pkg,
      "dist-tags": { latest: version },
      versions: {
        [version]: {
          ...packed.manifest,
          _id: `${pkg}@${version}`,
          dist: {
            tarball: `${base}/-/${pkg}/-/${pkg.split("/").pop()}-${version}.tgz`,
            integrity: packed.integrity,
            shasum: packed.shasum,
          },
        },
      },
    };
    // Revalidated on every install: a repack changes a tarball's integrity under the same version.
    res
      .writeHead(200, { "content-type": "application/json", "cache-control": "no-cache" })
      .end(JSON.stringify(doc));
  });
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(options.port ?? 0, "127.0.0.1", ok);
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`;
  return {
    url: `${base}/`,
    requested,
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok());
        // npm keeps connections alive: close them, or close() waits for their idle timeout.
        server.closeAllConnections();
      }),
  };
}
