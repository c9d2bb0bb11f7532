// Two instances that lead over one PostgreSQL with release announcements on their buses, as the
// leadership-release tests need them: each retries rarely, so a take they see came from an
// announcement (or the lead's own first try), never from a retry.
import { expect, vi } from "vitest";
import { Bus, InstanceLink, type LeaderHandle, Leadership } from "../src/index.js";
import { waitFor } from "./helpers.js";

/** Longer than any wait in those tests: a take seen there came from the announcement, not a retry. */
export const RARE_RETRY_MS = 600_000;
/** The bus kind of a release announcement (leadership.ts). */
export const RELEASED = "leader-released";

type TwoInstances = {
  links: [InstanceLink, InstanceLink];
  buses: [Bus, Bus];
  leaderships: [Leadership, Leadership];
};

/**
 * Runs `test` with instances a and b connected to `url`, their buses started; then restores the
 * test's spies and stops and closes them all, whether it passed or not.
 */
export async function withTwoInstances(
  url: string,
  test: (two: TwoInstances) => Promise<void>,
): Promise<void> {
  const links = [0, 1].map(() => new InstanceLink({ connectionString: url, healthCheckMs: 0 }));
  const buses = links.map((link) => new Bus(link));
  const leaderships: Leadership[] = [];
  try {
    for (const [i, link] of links.entries()) {
      await link.connect();
      await buses[i]?.start();
      leaderships.push(new Leadership(link, { retryMs: RARE_RETRY_MS, bus: buses[i] as Bus }));
    }
    await test({
      links: links as TwoInstances["links"],
      buses: buses as TwoInstances["buses"],
      leaderships: leaderships as TwoInstances["leaderships"],
    });
  } finally {
    vi.restoreAllMocks();
    for (const l of leaderships) await l.stop();
    for (const b of buses) await b.stop();
    for (const link of links) await link.close();
  }
}

/** `leadership` leads `name` and is its leader (a free lock, taken by the lead's first try). */
export async function leading(leadership: Leadership, name: string): Promise<LeaderHandle> {
  const handle = leadership.lead(name, { onAcquired: () => {} });
  await waitFor(`${name} led`, () => handle.isLeader, 5_000);
  return handle;
}

/**
 * `leadership`, over `link`, leads `name` too and waits in line: its first try (sent at once) is
 * answered, the lock held elsewhere; its next is RARE_RETRY_MS away.
 */
export async function waitingInLine(
  leadership: Leadership,
  link: InstanceLink,
  name: string,
): Promise<LeaderHandle> {
  const tries = vi.spyOn(link, "tryLock");
  const handle = leadership.lead(name, { onAcquired: () => {} });
  expect(await tries.mock.results[0]?.value).toBe(false);
  tries.mockRestore();
  return handle;
}
