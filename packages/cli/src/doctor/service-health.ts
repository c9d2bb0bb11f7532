// `agentsvc doctor`'s view of the running service (issue #43.11): per gateway, how long ago it last
// heard from its platform and last had a platform call succeed, as `/health/ready` reports them. A
// connection that is "running" but heard nothing for hours has gone deaf.
import { readServiceFile } from "../service-file.js";

export interface GatewayHealth {
  state: string;
  reason?: string;
  lastInboundAgeSeconds?: number;
  lastPlatformCallAgeSeconds?: number;
}

export type ServiceHealth =
  | { running: true; url: string; gateways: Record<string, GatewayHealth> }
  | { running: false; reason: string };

/** Asks the service at `url` (else the one `start` recorded in the project) for its gateways' health. */
export async function serviceHealth(projectDir: string, url?: string): Promise<ServiceHealth> {
  const base = url ?? readServiceFile(projectDir)?.url;
  if (!base) return { running: false, reason: "no agentsvc start is running in this project" };
  try {
    // 503 (not ready) still carries the gateways' details.
    const res = await fetch(`${base.replace(/\/+$/, "")}/health/ready`, {
      signal: AbortSignal.timeout(5_000),
    });
    const body = (await res.json()) as { gateways?: Record<string, GatewayHealth> };
    return { running: true, url: base, gateways: body.gateways ?? {} };
  } catch (error) {
    return { running: false, reason: `${base} does not answer (${(error as Error).message})` };
  }
}

const age = (seconds: number | undefined) =>
  seconds === undefined ? "never" : `${Math.round(seconds)} s ago`;

/** One line per gateway: its state, the age of its last inbound event and last successful platform call. */
export function healthLines(health: ServiceHealth): string[] {
  if (!health.running) return [`service   not running: ${health.reason}`];
  const entries = Object.entries(health.gateways);
  const width = Math.max(0, ...entries.map(([name]) => name.length));
  return [
    `service   running at ${health.url}`,
    ...entries.map(
      ([name, g]) =>
        `  ${name.padEnd(width)}  ${g.state}${g.reason ? ` (${g.reason})` : ""}, last inbound ${age(g.lastInboundAgeSeconds)}, last platform call ${age(g.lastPlatformCallAgeSeconds)}`,
    ),
  ];
}
