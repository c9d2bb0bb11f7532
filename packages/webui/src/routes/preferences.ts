import type { ChatDb } from "@agentsvc/chat-store";
import { Hono } from "hono";
import { readJsonObject } from "../body.js";
import { fail } from "../errors.js";
import { MAX_ID_LENGTH, requiredString } from "../fields.js";
import type { HonoEnv } from "../types.js";

/** Per-user preferences (the page keeps its theme here): any JSON value under a string key. */
export function preferenceRoutes(db: ChatDb): Hono<HonoEnv> {
  const app = new Hono<HonoEnv>();

  app.get("/preferences", async (c) => {
    return c.json({ success: true, preferences: await db.preferences.getAll(c.get("identity").userId) });
  });

  app.post("/preferences/set", async (c) => {
    const where = "POST /preferences/set";
    const body = await readJsonObject(c);
    const key = requiredString(where, body, "key", { max: MAX_ID_LENGTH, nonBlank: true });
    if (!("value" in body)) return fail(c, 400, "bad_request", `${where}: value: required, but missing`);
    await db.preferences.set(c.get("identity").userId, key, body.value);
    return c.json({ success: true });
  });

  app.post("/preferences/delete", async (c) => {
    const body = await readJsonObject(c);
    const key = requiredString("POST /preferences/delete", body, "key", {
      max: MAX_ID_LENGTH,
      nonBlank: true,
    });
    return c.json({ success: true, deleted: await db.preferences.delete(c.get("identity").userId, key) });
  });

  return app;
}
