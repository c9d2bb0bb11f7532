// Each gateway entry's live checks come from its adapter package's `doctor` export (issue #42): the
// platform knowledge lives in the adapter, found by package as `check` and `start` find it.
import { adapterPackageOf, findAdapter, type PushGatewayEntry } from "@agentsvc/config-schema";
import type { DoctorResult } from "@agentsvc/config-schema/adapter";

export type CheckResult = DoctorResult;

type Env = Record<string, string | undefined>;

/** The live checks of one gateway entry; a network error or a thrown check is a failed line, never a crash. */
export async function checkGateway(
  entry: PushGatewayEntry,
  env: Env,
  projectDir: string,
): Promise<CheckResult[]> {
  const type = entry.package ?? entry.type;
  const found = await findAdapter(type, projectDir);
  if (found.found !== "loaded")
    return [
      {
        check: `${entry.type} adapter`,
        status: "failed",
        detail:
          found.found === "missing"
            ? `the package ${adapterPackageOf(type)} is not installed`
            : found.message,
        fix: `install ${adapterPackageOf(type)} in the project (agentsvc check prints the command)`,
      },
    ];
  const { doctor } = found.module;
  if (!doctor)
    return [{ check: `${entry.type} adapter`, status: "ok", detail: `${found.pkg} has no live checks` }];
  try {
    return await doctor(entry, { env, projectDir });
  } catch (error) {
    return [
      {
        check: `${entry.type} credentials`,
        status: "failed",
        detail: (error as Error).message,
        fix: `the ${entry.type} API did not answer: check the network and the entry's base URL`,
      },
    ];
  }
}
