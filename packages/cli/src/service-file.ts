// Where a running `agentsvc start` says it listens, so `agentsvc doctor` in the same project can ask
// it for its gateways' health: `.agentsvc/service.json` ({ pid, url }), written once listening and
// removed when the process exits (a killed one leaves it: its pid no longer answers).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const FILE = join(".agentsvc", "service.json");

export interface ServiceFile {
  pid: number;
  url: string;
}

/** Records this process as the project's running service; removed again at exit. */
export function writeServiceFile(projectDir: string, url: string): void {
  const file = join(projectDir, FILE);
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify({ pid: process.pid, url } satisfies ServiceFile)}\n`);
  } catch {
    return; // a read-only project still serves; doctor then says "not running"
  }
  process.once("exit", () => {
    // Only our own record: a second start in the same folder may have written its own since.
    if (readServiceFile(projectDir)?.pid === process.pid) rmSync(file, { force: true });
  });
}

/** The recorded service when its process is alive, else undefined. */
export function readServiceFile(projectDir: string): ServiceFile | undefined {
  let record: Partial<ServiceFile>;
  try {
    record = JSON.parse(readFileSync(join(projectDir, FILE), "utf8")) as Partial<ServiceFile>;
  } catch {
    return undefined;
  }
  if (typeof record.pid !== "number" || typeof record.url !== "string") return undefined;
  try {
    process.kill(record.pid, 0);
  } catch (error) {
    // EPERM: alive but another user's; ESRCH: gone.
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return undefined;
  }
  return { pid: record.pid, url: record.url };
}
