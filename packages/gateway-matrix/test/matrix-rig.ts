// A gateway on a fresh Matrix fake, synced once: what each test of the gateway starts from
// (gateway.test.ts, reaction-room.test.ts, no-mentions.test.ts).
import { MatrixFake, within } from "@agentsvc/testkit";
import { type FixtureRun, runFixtureGateway } from "@agentsvc/testkit/session";
import { createGateway, type MatrixGateway } from "../src/index.js";

export interface MatrixRig {
  fake: MatrixFake;
  run: FixtureRun;
  gateway: MatrixGateway;
}

export async function startMatrixRig(): Promise<MatrixRig> {
  const fake = await MatrixFake.start();
  const gateway = createGateway({
    name: "matrix",
    accessTokenEnvVar: "MATRIX_TOKEN",
    env: { MATRIX_TOKEN: fake.token },
    homeserverUrl: fake.url,
    pollTimeoutMs: 1_000,
    backoff: { baseMs: 20, maxMs: 200 },
  });
  const run = await runFixtureGateway(gateway);
  await within(fake.firstSync(), 3_000, "the first sync");
  return { fake, run, gateway };
}

export async function stopMatrixRig(rig: Partial<MatrixRig>): Promise<void> {
  await rig.run?.rig.stop();
  await rig.fake?.close();
}
