// After a start the heap still holds what loading left behind (module parse data, the migrations'
// strings) and a young generation grown to ~16 MiB for it; V8's own memory reducer gives that back
// only after a full collection a start never runs (#45). Once the service has had no HTTP request
// in flight for `idleMs`, one memory-reducing collection (V8's "last resort" flavour: a few full
// GCs that shrink the young generation) does it: ~10 MiB of idle RSS on examples/hello, for ~70 ms
// of CPU paid while idle, never during a request. Once only: a busy service's heap is V8's business.
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { ServerResponse } from "node:http";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

export interface HeapTrim {
  /** Committed heap and resident set, MiB, before and after the collection. */
  heapMiB: { before: number; after: number };
  rssMiB: { before: number; after: number };
}

type Gc = (options: { type: "major"; flavor: "last-resort" }) => void;

/** V8's gc() without exposing it to the service's code: only a fresh context gets the global. */
function memoryReducingGc(): Gc {
  setFlagsFromString("--expose-gc");
  try {
    return runInNewContext("gc") as Gc;
  } finally {
    setFlagsFromString("--no-expose-gc");
  }
}

const mib = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

/**
 * Runs the collection once no HTTP request has been in flight for `idleMs`; `done` gets the
 * figures; `first` runs just before it (the bin's code cache: before a collection that may drop
 * compiled code). Returns a cancel (for a stop before it ran). The timer never keeps the process alive.
 */
export function trimHeapWhenIdle(
  idleMs: number,
  done: (trim: HeapTrim) => void,
  first?: () => void,
): () => void {
  const channel = "http.server.request.start";
  let timer: NodeJS.Timeout | undefined;
  let inFlight = 0;
  const cancel = () => {
    clearTimeout(timer);
    unsubscribe(channel, started);
  };
  const trim = () => {
    cancel();
    first?.();
    const before = process.memoryUsage();
    memoryReducingGc()({ type: "major", flavor: "last-resort" });
    const after = process.memoryUsage();
    done({
      heapMiB: { before: mib(before.heapTotal), after: mib(after.heapTotal) },
      rssMiB: { before: mib(before.rss), after: mib(after.rss) },
    });
  };
  function restart() {
    clearTimeout(timer);
    if (inFlight === 0) timer = setTimeout(trim, idleMs).unref();
  }
  // "close" comes after the response ends or the client goes away, whichever is first.
  function started(message: unknown) {
    const { response } = message as { response: ServerResponse };
    inFlight++;
    restart();
    response.once("close", () => {
      inFlight--;
      restart();
    });
  }
  subscribe(channel, started);
  restart();
  return cancel;
}
