import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { MissingConfigError, readSecrets } from "../src/index.js";

const logger = pino({ level: "silent" });

describe("readSecrets", () => {
  it("reads each named variable from the session env", () => {
    const secrets = readSecrets(
      { env: { TOKEN: "t", SECRET: "s" }, logger },
      { token: "TOKEN", secret: "SECRET" },
    );
    expect(secrets).toEqual({ token: "t", secret: "s" });
  });

  it("lets the adapter options' env override the session env", () => {
    const secrets = readSecrets(
      { env: { TOKEN: "from-session", OTHER: "o" }, logger },
      { token: "TOKEN", other: "OTHER" },
      { env: { TOKEN: "from-entry" } },
    );
    expect(secrets).toEqual({ token: "from-entry", other: "o" });
  });

  it("fails on a missing required secret, naming the variable and what to set it to", () => {
    const read = () =>
      readSecrets(
        { env: { TOKEN: "t" }, logger },
        { token: "TOKEN", appSecret: "WA_APP_SECRET" },
        { gateway: "whatsapp", describe: { appSecret: "the app secret of your Meta app" } },
      );
    expect(read).toThrow(MissingConfigError);
    try {
      read();
    } catch (err) {
      expect(err).toMatchObject({ code: "missing_config", envVar: "WA_APP_SECRET" });
      expect((err as Error).message).toBe(
        "whatsapp: WA_APP_SECRET is not set: set it to the app secret of your Meta app (in the environment, or the entry's env)",
      );
    }
  });

  it("treats an empty required secret as missing, in both places", () => {
    expect(() =>
      readSecrets({ env: { TOKEN: "" }, logger }, { token: "TOKEN" }, { env: { TOKEN: "" } }),
    ).toThrow(/TOKEN is not set/);
  });

  it("reads a secret whose entry key is unset (a feature left off) as an empty string, required or not", () => {
    const buttonsOff: string | undefined = undefined;
    expect(readSecrets({ env: { TOKEN: "t" }, logger }, { token: "TOKEN", secret: buttonsOff })).toEqual({
      token: "t",
      secret: "",
    });
  });

  it("reads a missing optional secret as an empty string", () => {
    const secrets = readSecrets(
      { env: { TOKEN: "t" }, logger },
      { token: "TOKEN", name: "BOT_NAME" },
      { optional: ["name"] },
    );
    expect(secrets).toEqual({ token: "t", name: "" });
  });
});
