// The load process of the soak rows: keeps COUNT `/agent/stream` streams open against URL for
// SECONDS, opening a new one as each ends. MODE `shared` sends no conversationId (every stream is
// in the `default` conversation); `own` gives each of the COUNT slots its own conversation.
// Prints one JSON line: streams completed per second of the run, errors, and a few error samples.
import { Agent, request } from "node:http";

const [url = "", countText = "0", secondsText = "60", mode = "shared"] = process.argv.slice(2);
const count = Number(countText);
const until = performance.now() + Number(secondsText) * 1000;
const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
const target = new URL(`${url}/agent/stream`);
const completedAt: number[] = [];
let errors = 0;
const sample: string[] = [];
const start = performance.now();

function one(slot: number): Promise<void> {
  return new Promise((done) => {
    const fail = (why: string) => {
      errors++;
      if (sample.length < 3) sample.push(why);
      done();
    };
    const body =
      mode === "own" ? { input: `soak ${slot}`, conversationId: `slot-${slot}` } : { input: `soak ${slot}` };
    const req = request(
      target,
      { method: "POST", agent, headers: { "content-type": "application/json", accept: "text/event-stream" } },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return fail(`status ${res.statusCode}`);
        }
        let tail = "";
        res.setEncoding("utf8");
        res.on("data", (text: string) => (tail = (tail + text).slice(-200)));
        res.on("end", () => {
          if (tail.includes("event: done")) {
            completedAt.push(Math.floor((performance.now() - start) / 1000));
            done();
          } else fail("ended without done");
        });
        res.on("error", (e) => fail(e.message));
      },
    );
    req.on("error", (e) => fail(e.message));
    req.end(JSON.stringify(body));
  });
}

async function slot(i: number): Promise<void> {
  while (performance.now() < until) await one(i);
}

await Promise.all(Array.from({ length: count }, (_, i) => slot(i)));
const perSecond: number[] = [];
for (const s of completedAt) perSecond[s] = (perSecond[s] ?? 0) + 1;
process.stdout.write(
  `${JSON.stringify({ perSecond: Array.from(perSecond, (n) => n ?? 0), errors, sample })}\n`,
);
agent.destroy();
