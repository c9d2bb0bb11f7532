/** Reads an `*EnvVar` by name at start-up. A missing variable yields an empty value (spec gateways §2). */
export function readEnv(env: NodeJS.ProcessEnv, name: string | undefined): string {
  if (!name) return "";
  return env[name] ?? "";
}
