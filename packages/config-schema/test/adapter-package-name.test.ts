import { describe, expect, it } from "vitest";
import { adapterPackageOf, isAdapterPackageName, isRegistryName } from "../src/adapter/index.js";

describe("adapter package names (the one rule check and start share)", () => {
  it("a built-in type loads @agentsvc/gateway-<type>", () => {
    expect(adapterPackageOf("telegram")).toBe("@agentsvc/gateway-telegram");
    expect(isAdapterPackageName("telegram")).toBe(false);
  });

  it("a scoped package or an agentsvc-gateway-* name is loaded as written", () => {
    expect(adapterPackageOf("@acme/agentsvc-gateway-line")).toBe("@acme/agentsvc-gateway-line");
    expect(adapterPackageOf("agentsvc-gateway-line")).toBe("agentsvc-gateway-line");
  });

  it("an unscoped package without the agentsvc-gateway- prefix is not a package type", () => {
    expect(isAdapterPackageName("line-adapter")).toBe(false);
    expect(isAdapterPackageName("@Acme/Line")).toBe(false);
  });

  it("a registry name is lower-case letters, digits and dashes, starting with a letter", () => {
    expect(isRegistryName("line-2")).toBe(true);
    expect(isRegistryName("Line")).toBe(false);
    expect(isRegistryName("2line")).toBe(false);
    expect(isRegistryName("@acme/line")).toBe(false);
  });
});
