// fetchForSend against 127.0.0.1: an answer of any status is handed back; a refused connection is
// the platform's network failure (retried by the outbox); an abort by the caller's signal is thrown
// as it is. parseAnswer: JSON, or {} for a proxy's HTML page.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { GatewaySendError } from "../src/errors.js";
import { fetchForSend, parseAnswer } from "../src/send-failure.js";

const call = { platform: "acme", call: "messages call" };

describe("fetchForSend", () => {
  it("hands back the platform's answer, an error status too", async () => {
    const server = createServer((_req, res) => void res.writeHead(503).end("busy"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const res = await fetchForSend(url, { method: "POST", body: "x" }, call);
      expect(res.status).toBe(503);
      expect(await res.text()).toBe("busy");
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it("turns a refused connection into the platform's network failure, not permanent", async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    await new Promise((r) => server.close(r));
    const failed = await fetchForSend(url, {}, call).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(GatewaySendError);
    expect((failed as GatewaySendError).message).toMatch(/^acme: messages call failed \(network\)/);
    expect((failed as GatewaySendError).permanent).toBe(false);
  });

  it("throws the caller's abort as it is", async () => {
    const abort = new AbortController();
    abort.abort(new Error("stopping"));
    const failed = await fetchForSend("http://127.0.0.1:9/", {}, call, abort.signal).catch(
      (err: unknown) => err,
    );
    expect(failed).not.toBeInstanceOf(GatewaySendError);
  });
});

describe("parseAnswer", () => {
  it("reads JSON and takes anything else as an empty answer", () => {
    expect(parseAnswer<{ sid: string }>('{"sid":"SM1"}')).toEqual({ sid: "SM1" });
    expect(parseAnswer("<html>502 Bad Gateway</html>")).toEqual({});
  });
});
