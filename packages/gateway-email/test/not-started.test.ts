// A gateway the session never started, or whose start failed, has nothing to send with: it says so
// instead of failing somewhere inside SMTP, and stopping it is harmless (the session stops a gateway
// whose start failed).
import { gatewayAlone } from "@agentsvc/testkit/session";
import { describe, expect, it } from "vitest";
import { createGateway } from "../src/index.js";

const gateway = (more: { tlsCaFile?: string } = {}) =>
  createGateway({
    name: "email",
    imapHostEnvVar: "IMAP_HOST",
    imapUsernameEnvVar: "IMAP_USER",
    imapPasswordEnvVar: "IMAP_PASS",
    fromAddressEnvVar: "MAIL_FROM",
    env: { IMAP_HOST: "127.0.0.1", IMAP_USER: "bot", IMAP_PASS: "secret", MAIL_FROM: "bot@example.test" },
    ...more,
  });

const send = { idempotencyKey: "k", attempt: 1 };

describe("an email gateway that is not started", () => {
  it("refuses to send saying it is not started, and stops without error", async () => {
    const gw = gateway();
    await expect(gw.send("ann@example.test", "hi", send)).rejects.toThrow(/^email gateway is not started$/);
    await expect(gw.stop()).resolves.toBeUndefined();
  });

  it("after a start that failed (unreadable tlsCaFile) refuses to send saying it is not started", async () => {
    const gw = gateway({ tlsCaFile: "/nonexistent/ca.pem" });
    const alone = gatewayAlone(gw);
    await expect(gw.start(alone.context)).rejects.toThrow(/tlsCaFile/);
    await expect(gw.send("ann@example.test", "hi", send)).rejects.toThrow(/^email gateway is not started$/);
    await alone.stop();
  });
});
