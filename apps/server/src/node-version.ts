// startServer checks first: on an older Node the native store module (better-sqlite3) crashes the
// process with a bare "Segmentation fault" at the first open. The agentsvc bin checks the same before
// loading anything (packages/cli/bin/node-version.js); this guards programs that start the server themselves.
export const MIN_NODE_MAJOR = 22;

/** Throws a message naming the Node found and the fix when `version` is older than supported. */
export function assertSupportedNode(version: string = process.versions.node): void {
  if (Number(version.split(".")[0]) >= MIN_NODE_MAJOR) return;
  throw new Error(
    `agentsvc needs Node ${MIN_NODE_MAJOR} or newer (found v${version}). Install Node ${MIN_NODE_MAJOR} or newer ` +
      `(\`nvm install ${MIN_NODE_MAJOR}\`, or https://nodejs.org/) and reinstall the project's packages under it.`,
  );
}
