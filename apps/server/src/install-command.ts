import { installCommand } from "@agentsvc/config-schema";
import { adapterPackageName } from "@agentsvc/session-core/host";

// Which packages are missing and the install command are config-schema's (check uses them without the server).
export { installCommand, type MissingAdapters, missingAdapters } from "@agentsvc/config-schema";

/** A missing adapter package's error, naming the install command of this project's package manager. */
export function adapterLoadError(error: Error & { code?: string }, type: string, root: string): Error {
  if (error.code !== "adapter_not_installed") return error;
  const pkg = adapterPackageName(type);
  // A subpath (`mock`: @agentsvc/session-core/mock) is installed with its package.
  const installed = pkg
    .split("/")
    .slice(0, pkg.startsWith("@") ? 2 : 1)
    .join("/");
  return Object.assign(
    new Error(
      `gateway type "${type}" needs the package ${pkg}, which is not installed in ${root}. Install it: ${installCommand(root, installed)}`,
    ),
    { code: error.code },
  );
}
