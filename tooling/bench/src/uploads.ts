// Uploads (#46): RSS of the server while 100 clients each stream a 10 MB picture into the chat
// page's upload route at once (`POST <path>/api/files` with media on: spooled to disk while it
// streams, typed by its first bytes, stored in 256 KiB pieces), against the same server idle after
// one upload (its code paths loaded). Streamed, not buffered whole: the target is at most 1.2x the
// idle RSS plus 100 MB, where buffering would add 1,000 MB. The clients stream their bodies from a
// generator in this process, so the server's memory is the only one measured.
import { freshProject } from "./fresh-project.ts";
import { startChildServer } from "./child-server.ts";
import { machineLoad, memoryOf } from "./proc.ts";
import { fmt, type Row } from "./stats.ts";

const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 100);
const FILE_BYTES = 10 * 1000 * 1000;
const PIECE = 64 * 1024;

/** A JPEG of `FILE_BYTES`, different per `n` (so each is its own blob), as a stream of 64 KiB pieces. */
function jpegStream(n: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= FILE_BYTES) return controller.close();
      const size = Math.min(PIECE, FILE_BYTES - sent);
      const piece = new Uint8Array(size).fill((n + sent / PIECE) & 0xff);
      if (sent === 0)
        piece.set([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, n & 0xff, n >> 8]);
      sent += size;
      controller.enqueue(piece);
    },
  });
}

/** The answer's status and body (a refusal's JSON names why), or the transport error. */
async function upload(api: string, n: number): Promise<{ status: number; text: string }> {
  try {
    const res = await fetch(`${api}/files`, {
      method: "POST",
      headers: { "x-file-name": `photo-${n}.jpg`, "content-length": String(FILE_BYTES) },
      body: jpegStream(n),
      duplex: "half",
    } as RequestInit);
    return { status: res.status, text: (await res.text()).slice(0, 200) };
  } catch (error) {
    return { status: 0, text: String((error as Error).cause ?? error) };
  }
}

export async function benchUploads(): Promise<Row[]> {
  const project = freshProject("project-uploads");
  const server = await startChildServer(new URL("./servers/route.ts", import.meta.url).pathname, {
    BENCH_PROJECT_DIR: project.dir,
  });
  try {
    const api = `${server.url}/chat/api`;
    const warm = await upload(api, 0);
    if (warm.status !== 201) throw new Error(`the warm-up upload answered ${warm.status} ${warm.text}`);
    await new Promise((r) => setTimeout(r, 500));
    const idle = memoryOf(server.pid).rssMiB;
    let peak = idle;
    const sampler = setInterval(() => {
      peak = Math.max(peak, memoryOf(server.pid).rssMiB);
    }, 20);
    const started = performance.now();
    // A keep-alive socket the server closes just as a body starts gives EPIPE (a streamed body is not
    // retried by fetch): such an upload is sent once more on a new connection.
    const once = async (n: number) => {
      const first = await upload(api, n);
      return first.status === 0 ? upload(api, n) : first;
    };
    const statuses = await Promise.all(Array.from({ length: UPLOADS }, (_, i) => once(i + 1)));
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, memoryOf(server.pid).rssMiB);
    const ok = statuses.filter((s) => s.status === 201).length;
    const refused = statuses.find((s) => s.status !== 201);
    if (refused)
      throw new Error(`${ok} of ${UPLOADS} uploads stored; one got ${refused.status} ${refused.text}`);
    const budget = idle * 1.2 + 100;
    return [
      {
        metric: `peak RSS while ${UPLOADS} x 10 MB uploads stream in at once (vs idle after one upload; ${machineLoad()})`,
        value: `${fmt(peak, 0)} MB`,
        baseline: `${fmt(idle, 0)} MB`,
        ratio: fmt(peak / idle),
        target: `<= 1.2x + 100 MB (${fmt(budget, 0)} MB)${peak <= budget ? "" : " MISSED"}`,
      },
      {
        metric: `${UPLOADS} x 10 MB stored (201 each): wall time and throughput`,
        value: `${fmt(seconds, 1)} s`,
        baseline: "-",
        ratio: "-",
        target: `${fmt((UPLOADS * FILE_BYTES) / 1e6 / seconds, 0)} MB/s`,
      },
    ];
  } finally {
    await server.stop();
    project.remove();
  }
}
