// One load process of the streams row: opens COUNT streams to URL at once (POST /agent/stream),
// reads each to its `done` event, and prints one JSON line: first-chunk times in ms (from this
// process's common start), errors and completed streams.
import { Agent, request } from "node:http";

const [url = "", countText = "0"] = process.argv.slice(2);
const count = Number(countText);
const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
const target = new URL(`${url}/agent/stream`);
const firstChunkMs: number[] = [];
let errors = 0;
let completed = 0;
const sample: string[] = [];

function one(i: number, start: number): Promise<void> {
  return new Promise((done) => {
    const fail = (why: string) => {
      errors++;
      if (sample.length < 3) sample.push(why);
      done();
    };
    const req = request(
      target,
      { method: "POST", agent, headers: { "content-type": "application/json", accept: "text/event-stream" } },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return fail(`status ${res.statusCode}`);
        }
        let seen = "";
        let first = false;
        res.setEncoding("utf8");
        res.on("data", (text: string) => {
          // Only the tail is kept (the done event is the last one); look before trimming.
          const joined = seen + text;
          seen = joined.slice(-200);
          if (!first && joined.includes("event: chunk")) {
            first = true;
            firstChunkMs.push(performance.now() - start);
          }
        });
        res.on("end", () => {
          if (seen.includes("event: done")) {
            completed++;
            done();
          } else fail("ended without done");
        });
        res.on("error", (e) => fail(e.message));
      },
    );
    req.on("error", (e) => fail(e.message));
    req.end(JSON.stringify({ input: `stream ${process.pid}-${i}` }));
  });
}

const start = performance.now();
await Promise.all(Array.from({ length: count }, (_, i) => one(i, start)));
process.stdout.write(`${JSON.stringify({ firstChunkMs, errors, completed, sample })}\n`);
