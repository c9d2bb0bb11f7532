// startServer checks first: on an older Node the native store module (better-sqlite3) crashes the
// process with a bare "Segmentation fault" at the first open — Node 22 before 22.14 included (seen on
// 22.12.0 and 22.13.x). The agentsvc bin checks the same before loading anything
// (packages/cli/bin/node-version.js); this guards programs that start the server themselves.
export const MIN_NODE = { major: 22, minor: 14 } as const;

/** Throws a message naming the Node found and the fix when `version` is older than supported. */
export function assertSupportedNode(version: string = process.versions.node): void {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  if (major > MIN_NODE.major || (major === MIN_NODE.major && minor >= MIN_NODE.minor)) return;
  throw new Error(
    `agentsvc needs Node ${MIN_NODE.major}.${MIN_NODE.minor} or newer (found v${version}). Install Node ${MIN_NODE.major}.${MIN_NODE.minor} or newer ` +
      `(\`nvm install ${MIN_NODE.major}\`, or https://nodejs.org/) and reinstall the project's packages under it.`,
  );
}
