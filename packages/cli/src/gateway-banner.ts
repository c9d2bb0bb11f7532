import type { GatewayRoute } from "@agentsvc/server";

/**
 * One banner line per gateway: the URL its platform console wants for a webhook gateway (on the
 * public base URL when the config has one), else how it reaches its platform.
 */
export function gatewayLines(gateways: readonly GatewayRoute[], base: string): string[] {
  const labels = gateways.map((g) => (g.name === g.type ? g.name : `${g.name} (${g.type})`));
  const width = Math.max(0, ...labels.map((l) => l.length));
  return gateways.map((g, i) => {
    const where = g.webhookPath
      ? `${base.replace(/\/+$/, "")}${g.webhookPath}`
      : "(connects to its platform itself; no webhook)";
    return `  gateway ${(labels[i] ?? "").padEnd(width)}  ${where}`;
  });
}
