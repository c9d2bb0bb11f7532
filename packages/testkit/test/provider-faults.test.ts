// What every provider fake shares (src/providers/core.ts): requests recorded, steps taken in
// order, slow heads, dropped sockets before and after the first delta, malformed chunks. Shown on
// FakeOpenAI; the other formats run the same core.
import { request } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FakeAnthropic, FakeOpenAI, OPENAI_TEST_KEY } from "../src/index.js";
import { parseSse, post } from "./sse.js";

let fake: FakeOpenAI | FakeAnthropic | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const auth = { authorization: `Bearer ${OPENAI_TEST_KEY}` };
const body = { model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "hi" }] };

/** Raw bytes of an answer, and whether the socket was cut before the response ended. */
function rawAnswer(url: string): Promise<{ status?: number; received: string; reset: boolean }> {
  return new Promise((resolve) => {
    let received = "";
    let status: number | undefined;
    const req = request(
      `${url}/v1/chat/completions`,
      { method: "POST", headers: { "content-type": "application/json", ...auth } },
      (res) => {
        status = res.statusCode;
        res.on("data", (d: Buffer) => (received += d.toString()));
        res.on("end", () => resolve({ status, received, reset: false }));
        res.on("error", () => resolve({ status, received, reset: true }));
      },
    );
    req.on("error", () => resolve({ status, received, reset: true }));
    req.setTimeout(5000, () => req.destroy());
    req.end(JSON.stringify(body));
  });
}

const contents = (received: string) =>
  parseSse(received)
    .filter((e) => e.data.startsWith("{"))
    .map((e) => {
      try {
        return (JSON.parse(e.data) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta
          .content;
      } catch {
        return "(malformed)";
      }
    });

describe("provider fakes: recording and scripting", () => {
  it("records every request with its body and lower-case headers, and answers queued steps in order, then the fallback", async () => {
    fake = await FakeOpenAI.start({ fallback: (req) => ({ text: [`fallback for #${req.index}`] }) });
    fake.enqueue({ text: ["first"] }, { text: ["second"] });
    const answers: string[] = [];
    for (let i = 0; i < 3; i++)
      answers.push(
        contents(
          (await post(`${fake.baseURL}/chat/completions`, body, { ...auth, "X-Trace": `t${i}` })).text,
        ).join(""),
      );
    expect(answers).toEqual(["first", "second", "fallback for #2"]);
    fake.enqueue({ text: ["never asked for"] });
    expect(fake.discardPending()).toBe(1);
    expect(fake.pending).toBe(0);
    expect(fake.count).toBe(3);
    expect(fake.requests.map((r) => r.headers["x-trace"])).toEqual(["t0", "t1", "t2"]);
    expect(fake.requests[0]?.body).toEqual(body);
    expect(await fake.requests[0]?.outcome).toBe("complete");
  });

  it("leaves the queued step for the next request when it refuses a request's history", async () => {
    fake = await FakeOpenAI.start();
    fake.enqueue({ text: ["for the valid request"] });
    const orphan = { ...body, messages: [{ role: "tool", tool_call_id: "call_x", content: "1" }] };
    expect((await post(`${fake.baseURL}/chat/completions`, orphan, auth)).status).toBe(400);
    expect(fake.pending).toBe(1);
    expect(contents((await post(`${fake.baseURL}/chat/completions`, body, auth)).text).join("")).toBe(
      "for the valid request",
    );
  });

  it("answers the provider's 400 for a body that is not JSON and 404 for another path", async () => {
    fake = await FakeOpenAI.start();
    expect((await post(`${fake.baseURL}/chat/completions`, "{not json", auth)).status).toBe(400);
    expect((await post(`${fake.baseURL}/responses`, body, auth)).status).toBe(404);
  });

  it("holds the response head for headDelayMs (a slow provider): nothing arrives before it", async () => {
    // The fake's delay on a fake clock the test moves: on the real one a loaded run may not have
    // delivered the request 100 ms in, or may be past the 300 ms head delay by the look.
    const realSetTimeout = globalThis.setTimeout;
    const realSleep = (ms: number) => new Promise((r) => realSetTimeout(r, ms));
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      fake = await FakeOpenAI.start();
      let taken = false;
      // The step is read right before the fake waits for headDelayMs.
      fake.enqueue(() => {
        taken = true;
        return { text: ["late"], headDelayMs: 300 };
      });
      let headers = false;
      const pending = fetch(`${fake.baseURL}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", ...auth },
        body: JSON.stringify(body),
      }).then((res) => {
        headers = true;
        return res.text();
      });
      for (let i = 0; i < 1_000 && !taken; i++) await realSleep(10);
      expect(fake.count).toBe(1);
      // The head waits on the fake's timer: 100 real ms for one sent at once to arrive, then 299 more.
      await realSleep(100);
      await vi.advanceTimersByTimeAsync(299);
      await realSleep(20);
      expect(headers).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(contents(await pending).join("")).toBe("late");
    } finally {
      vi.useRealTimers();
    }
  });

  it("sees a client that gives up during a slow head as client-closed", async () => {
    fake = await FakeOpenAI.start();
    fake.enqueue({ text: ["late"], headDelayMs: 5000 });
    const abort = new AbortController();
    const pending = fetch(`${fake.baseURL}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...auth },
      body: JSON.stringify(body),
      signal: abort.signal,
    }).catch(() => undefined);
    while (fake.count === 0) await new Promise((r) => setTimeout(r, 10));
    abort.abort();
    await pending;
    expect(await fake.requests[0]?.outcome).toBe("client-closed");
  });

  it("destroys the socket before any response when told to drop before the head", async () => {
    fake = await FakeOpenAI.start();
    fake.enqueue({ text: ["never"], fault: { kind: "drop", when: "before-head" } });
    const answer = await rawAnswer(fake.url);
    expect(answer).toMatchObject({ status: undefined, received: "", reset: true });
    expect(await fake.requests[0]?.outcome).toBe("dropped");
  });

  it("drops the stream after its preamble with no delta, or right after the first delta", async () => {
    fake = await FakeOpenAI.start();
    fake.enqueue(
      { text: ["one", "two"], fault: { kind: "drop", when: "before-first-token" } },
      { text: ["one", "two"], fault: { kind: "drop", when: "after-first-token" } },
    );
    const before = await rawAnswer(fake.url);
    expect(before.status).toBe(200);
    expect(before.reset).toBe(true);
    expect(contents(before.received)).toEqual([""]);
    const after = await rawAnswer(fake.url);
    expect(after.reset).toBe(true);
    expect(contents(after.received)).toEqual(["", "one"]);
    expect(after.received).not.toContain("[DONE]");
  });

  it("sends one chunk that is not JSON, then the rest of the stream", async () => {
    fake = await FakeOpenAI.start();
    fake.enqueue({ text: ["a", "b"], fault: { kind: "malformed", afterTokens: 1 } });
    const answer = await rawAnswer(fake.url);
    expect(contents(answer.received).slice(0, 4)).toEqual(["", "a", "(malformed)", "b"]);
    expect(answer.received.trimEnd().endsWith("data: [DONE]")).toBe(true);
  });

  it("sees a client that hangs up mid-stream as client-closed and stops streaming", async () => {
    fake = await FakeAnthropic.start();
    fake.enqueue({ text: Array.from({ length: 50 }, (_, i) => `t${i} `), tokenDelayMs: 20 });
    const abort = new AbortController();
    const res = await fetch(`${fake.baseURL}/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": fake.apiKey as string,
        "anthropic-version": "2023-06-01",
      },
      body: JSON.stringify({
        model: "claude-sonnet-4-5",
        max_tokens: 100,
        stream: true,
        messages: [{ role: "user", content: "hi" }],
      }),
      signal: abort.signal,
    });
    const reader = res.body?.getReader();
    await reader?.read();
    abort.abort();
    expect(await fake.requests[0]?.outcome).toBe("client-closed");
  });
});
