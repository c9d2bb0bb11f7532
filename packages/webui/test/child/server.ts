// A tiny ChatUi server process for the restart test: serves a data dir on 127.0.0.1 and prints its
// API base URL as one JSON line. Killed with SIGKILL by the test; a second one reopens the same files.
import { startHarness } from "../harness.js";

const dir = process.argv[2];
if (!dir) throw new Error("usage: server.ts <data dir>");
const h = await startHarness({ dir });
process.stdout.write(`${JSON.stringify({ base: h.base, pid: process.pid })}\n`);
