// The provider fake tests' set-up: each test starts its own fakes, closed after it whether it
// passed or not.
import { afterEach } from "vitest";
import type { ProviderFake } from "../src/index.js";

/** Registers the calling file's afterEach; returns `started(X.start())`, which keeps the fake to close. */
export function startedFakes(): <F extends ProviderFake>(starting: Promise<F>) => Promise<F> {
  const open: ProviderFake[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((fake) => fake.close()));
  });
  return async (starting) => {
    const fake = await starting;
    open.push(fake);
    return fake;
  };
}
