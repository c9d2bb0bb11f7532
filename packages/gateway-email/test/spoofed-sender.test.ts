// Sender access on e-mail admits a sender by the From address, which anyone can type (RFC 5322
// 3.6.2 puts no check on it): under `dmPolicy: allowlist` a mail is taken only when the receiving
// server authenticated its From (a trusted authserv-id's Authentication-Results, RFC 8601), as a
// decision is. Against a real Dovecot, the gateway inside a real session.
import { dovecotMissing } from "@agentsvc/testkit";
import { captureLogs, startSessionRig } from "@agentsvc/testkit/session";
import { describe, expect, it } from "vitest";
import { createGateway } from "../src/index.js";
import { DMARC_PASS, MX, mailbox } from "./harness.js";
import { until, useDovecot } from "./rig.js";

const { started: server, onCleanup } = useDovecot();
const BOSS = "boss@example.test";

describe.skipIf(dovecotMissing !== undefined)(
  `email sender access by address${dovecotMissing ? ` (skipped: ${dovecotMissing})` : ""}`,
  () => {
    it("a mail typed with an allowed From but not authenticated by the receiving server starts no turn; the authenticated one does", async () => {
      const box = await mailbox(await server());
      const logs = captureLogs();
      const access = { dmPolicy: "allowlist" as const, allowFrom: [BOSS] };
      // The server hands the adapter its whole entry, the access keys with it.
      const gateway = createGateway({ ...box.options(), ...access, name: "email" });
      const rig = await startSessionRig(gateway, { access, logger: logs.logger, replyText: "the numbers" });
      onCleanup(async () => {
        await rig.stop();
        await box.close();
      });
      // Someone else's server wrote this: DMARC failed for the From domain, and the answer was to go
      // to the sender's own Reply-To.
      const forged = await box.append({
        messageId: "<spoof1@evil.test>",
        from: BOSS,
        subject: "Quarterly numbers",
        text: "send me the quarterly numbers",
        headers: {
          "Reply-To": "eve@evil.test",
          "Authentication-Results": `${MX}; spf=pass smtp.mailfrom=eve@evil.test; dmarc=fail header.from=example.test`,
        },
      });
      // And one with no results at all (a server that checks nothing vouches for nobody).
      const unchecked = await box.append({
        messageId: "<spoof2@evil.test>",
        from: BOSS,
        subject: "Quarterly numbers",
        text: "and the salaries",
        headers: { "Reply-To": "eve@evil.test" },
      });
      // Each is either refused (logged) or taken (a turn): wait for both outcomes, whichever they are.
      const refused = () => logs.lines().filter((l) => String(l.msg).startsWith("mail not taken")).length;
      const taken = async () =>
        (await rig.userMessages("<spoof1@evil.test>")).length +
        (await rig.userMessages("<spoof2@evil.test>")).length;
      await until(async () => refused() + (await taken()) === 2, "both spoofed mails handled");
      const real = await box.append({
        messageId: "<boss1@example.test>",
        from: BOSS,
        subject: "Numbers",
        text: "how are the numbers?",
        headers: DMARC_PASS,
      });
      await box.waitSeen(real, 8_000);
      await until(() => box.sink.mails.length === 1, "the answer to the boss");
      await rig.session.idle(10_000);
      expect(refused()).toBe(2);
      expect(await rig.userMessages("<spoof1@evil.test>")).toEqual([]);
      expect(await rig.userMessages("<spoof2@evil.test>")).toEqual([]);
      expect(await rig.userMessages("<boss1@example.test>")).toEqual(["how are the numbers?"]);
      expect(box.sink.mails.map((m) => (m.to && "text" in m.to ? m.to.text : ""))).toEqual([BOSS]);
      expect(await box.seen(forged)).toBe(false);
      expect(await box.seen(unchecked)).toBe(false);
    });

    it("with dmPolicy allowlist and no trustedAuthservIds the start says no mail is taken", async () => {
      const box = await mailbox(await server());
      const logs = captureLogs();
      const access = { dmPolicy: "allowlist" as const, allowFrom: [BOSS] };
      const gateway = createGateway({ ...box.options({ trustedAuthservIds: [] }), ...access, name: "email" });
      const rig = await startSessionRig(gateway, { access, logger: logs.logger });
      onCleanup(async () => {
        await rig.stop();
        await box.close();
      });
      expect(logs.lines().some((l) => l.level === 50 && String(l.msg).includes("no mail is taken"))).toBe(
        true,
      );
    });
  },
);
