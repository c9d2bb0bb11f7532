// The UID cursor is the gateway's redelivery promise: IMAP does not push a message twice, so a
// message whose recording failed must stay ahead of the cursor and be read again by a later poll.
import { describe, expect, it } from "vitest";
import { dovecotMissing } from "@agentsvc/testkit";
import { emailRig, until, useDovecot } from "./rig.js";

const { started: server, onCleanup } = useDovecot();

describe.skipIf(dovecotMissing !== undefined)("the UID cursor against Dovecot", () => {
  it("a mail whose recording failed is read again by a later poll, not skipped by the cursor", async () => {
    const { rig, box, close } = await emailRig(await server());
    onCleanup(close);
    await rig.session.idle(5_000);
    let failures = 0;
    rig.deliverHook = async (inbound, next) => {
      if (inbound.dedupKey === "<lost1@example.test>" && failures < 2) {
        failures += 1;
        throw new Error("store unavailable");
      }
      return next(inbound);
    };
    const uid = await box.append({
      messageId: "<lost1@example.test>",
      from: "eve@example.test",
      subject: "Keep me",
      text: "do not lose tokCURSOR",
    });
    await until(() => failures === 2, "two failed recordings");
    // A later mail arrives behind it; the failed one must still come first.
    await box.append({
      messageId: "<later1@example.test>",
      from: "eve@example.test",
      subject: "Later",
      text: "second tokLATER",
    });
    await box.waitSeen(uid, 8_000);
    await until(() => box.sink.mails.length === 2, "both replies");
    await rig.session.idle(10_000);
    expect(await rig.userMessages("<lost1@example.test>")).toEqual(["do not lose tokCURSOR"]);
    expect(box.sink.mails.map((m) => m.inReplyTo).sort()).toEqual([
      "<later1@example.test>",
      "<lost1@example.test>",
    ]);
  });
});
