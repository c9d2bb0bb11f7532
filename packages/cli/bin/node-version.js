// Runs before anything else is loaded: on an older Node the native store module (better-sqlite3)
// crashes the process with a bare "Segmentation fault" at the first open, with no hint why.
const MIN_MAJOR = 22;

/** The message for a Node older than agentsvc supports, or undefined when `version` is fine. */
export function nodeVersionProblem(version = process.versions.node) {
  const major = Number(version.split(".")[0]);
  if (major >= MIN_MAJOR) return undefined;
  return [
    `agentsvc needs Node ${MIN_MAJOR} or newer (found v${version}).`,
    `Install Node ${MIN_MAJOR} or newer (\`nvm install ${MIN_MAJOR}\`, or https://nodejs.org/), run agentsvc with it,`,
    "and reinstall the project's packages under it (native modules are built for one Node version).",
  ].join("\n");
}
