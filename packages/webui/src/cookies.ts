import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";

/** Name of the sign-in session cookie. Its value is an opaque random id of a server-side row. */
export const SESSION_COOKIE = "agentsvc_session";

export interface CookieSettings {
  /** Cookie `Path`: the API prefix (`<path>/api`), so the cookie goes nowhere else. */
  path: string;
  /** `true`/`false` force the Secure flag; `"auto"` sets it when the request came over https. */
  secure: boolean | "auto";
}

function isHttps(c: Context): boolean {
  if (new URL(c.req.url).protocol === "https:") return true;
  // Only ever makes the cookie stricter, so trusting a proxy's header here is harmless.
  return (c.req.header("x-forwarded-proto") ?? "").split(",")[0]?.trim().toLowerCase() === "https";
}

export function readSessionCookie(c: Context): string | undefined {
  const value = getCookie(c, SESSION_COOKIE);
  return value && value.length <= 256 ? value : undefined;
}

/** A browser-session cookie (no Max-Age): the 60-minute sliding timeout is enforced on the server row. */
export function writeSessionCookie(c: Context, id: string, settings: CookieSettings): void {
  setCookie(c, SESSION_COOKIE, id, {
    path: settings.path,
    httpOnly: true,
    sameSite: "Lax",
    secure: settings.secure === "auto" ? isHttps(c) : settings.secure,
  });
}

export function clearSessionCookie(c: Context, settings: CookieSettings): void {
  deleteCookie(c, SESSION_COOKIE, {
    path: settings.path,
    httpOnly: true,
    sameSite: "Lax",
    secure: settings.secure === "auto" ? isHttps(c) : settings.secure,
  });
}
