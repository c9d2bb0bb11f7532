// How an entry's `type` names its adapter package (docs/building-an-adapter.md, section 1): the one
// definition that validation (config-schema) and start (session-core's loader) both use.

/** A third-party adapter named by package: scoped (`@acme/agentsvc-gateway-line`) or `agentsvc-gateway-*`. */
const ADAPTER_PACKAGE =
  /^(@[a-z0-9][a-z0-9._~-]*\/[a-z0-9][a-z0-9._~-]*|agentsvc-gateway-[a-z0-9][a-z0-9._~-]*)$/;

/** A gateway's registry name (and a built-in type): lower-case letters, digits and dashes. */
const REGISTRY_NAME = /^[a-z][a-z0-9-]*$/;

/** Is `type` an npm package name (a third-party adapter) rather than a built-in type? */
export function isAdapterPackageName(type: string): boolean {
  return ADAPTER_PACKAGE.test(type);
}

/** Is `name` usable as a registry name (`adapter.type`, a built-in type)? */
export function isRegistryName(name: string): boolean {
  return REGISTRY_NAME.test(name);
}

/**
 * What a `type: mock` entry loads: the mock gateway alone (not session-core's `./testing`, whose
 * contract suite imports vitest), in the package the app must install for it.
 */
export const MOCK_ADAPTER = { module: "@agentsvc/session-core/mock", pkg: "@agentsvc/session-core" } as const;

/** The package an entry of `type` loads: `telegram` -> `@agentsvc/gateway-telegram`; a package name as written. */
export function adapterPackageOf(type: string): string {
  return isAdapterPackageName(type) ? type : `@agentsvc/gateway-${type}`;
}
