/** The package manager that ran this command, from the user agent it exports (npx, pnpm dlx, yarn dlx, bunx). */
export type PackageManager = "npm" | "pnpm" | "yarn" | "bun";

export function invokingPackageManager(env: Record<string, string | undefined>): PackageManager {
  const agent = env.npm_config_user_agent ?? "";
  for (const pm of ["pnpm", "yarn", "bun"] as const) if (agent.startsWith(`${pm}/`)) return pm;
  return "npm";
}

/** How to install a project's dependencies and run its local `agentsvc`, per package manager. */
export const PM_COMMANDS: Record<PackageManager, { install: string; exec: string }> = {
  npm: { install: "npm install", exec: "npx agentsvc" },
  pnpm: { install: "pnpm install", exec: "pnpm exec agentsvc" },
  yarn: { install: "yarn install", exec: "yarn agentsvc" },
  bun: { install: "bun install", exec: "bunx agentsvc" },
};
