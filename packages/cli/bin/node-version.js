// Runs before anything else is loaded: on an older Node the native store module (better-sqlite3)
// crashes the process with a bare "Segmentation fault" at the first open, with no hint why. That
// includes Node 22 before 22.14 (seen on 22.12.0, 22.13.0 and 22.13.1; 22.14.0 and later open it).
const MIN = [22, 14];
const MIN_TEXT = MIN.join(".");

/** The message for a Node older than agentsvc supports, or undefined when `version` is fine. */
export function nodeVersionProblem(version = process.versions.node) {
  const [major, minor] = version.split(".").map(Number);
  if (major > MIN[0] || (major === MIN[0] && minor >= MIN[1])) return undefined;
  return [
    `agentsvc needs Node ${MIN_TEXT} or newer (found v${version}).`,
    `Install Node ${MIN_TEXT} or newer (\`nvm install ${MIN[0]}\`, or https://nodejs.org/), run agentsvc with it,`,
    "and reinstall the project's packages under it (native modules are built for one Node version).",
  ].join("\n");
}
