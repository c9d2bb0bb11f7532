// What the handler hands a gateway for a request (handler.ts `received`): the URL as the server
// received it, as `url` and `publicUrl`, and its query, read only when asked for.
import type { WebhookRequest } from "@agentsvc/adapter-kit";
import { afterEach, describe, expect, it } from "vitest";
import { signed } from "./client.js";
import { type HttpRig, httpRig } from "./rig.js";

const SECRET = "received-secret";
let r: HttpRig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

describe("the request a gateway receives", () => {
  it("carries the URL as sent and its query, on the events and outbox routes", async () => {
    r = await httpRig([{ name: "hooks", secretEnvVar: "HOOKS_SECRET" }], { HOOKS_SECRET: SECRET });
    const gateway = r.gateways[0];
    if (!gateway) throw new Error("no gateway");
    const seen: WebhookRequest[] = [];
    const verify = gateway.verify.bind(gateway);
    gateway.verify = (req, now) => {
      seen.push(req);
      return verify(req, now);
    };
    const events = "/gateways/hooks/events?trace=1&note=a%20b&note=c";
    const accepted = await signed(r.base, "POST", events, {
      secret: SECRET,
      body: { id: "ev-1", thread: "th", text: "hi" },
    });
    expect(accepted.status).toBe(202);
    const outbox = "/gateways/hooks/threads/th/messages?after=0";
    expect((await signed(r.base, "GET", outbox, { secret: SECRET })).status).toBe(200);

    const [event, read] = seen;
    expect(event?.url).toBe(`${r.base}${events}`);
    expect(event?.publicUrl).toBe(`${r.base}${events}`);
    expect(event?.query.get("trace")).toBe("1");
    expect(event?.query.getAll("note")).toEqual(["a b", "c"]);
    // Asked twice, the same parameters: one parse a request.
    expect(event?.query).toBe(event?.query);
    expect(read?.url).toBe(`${r.base}${outbox}`);
    expect([...(read?.query ?? [])]).toEqual([["after", "0"]]);
  });
});
