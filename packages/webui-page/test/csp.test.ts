import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { pageSecurityHeaders, renderPage } from "../src/index.js";

const hash = (s: string) => `'sha256-${createHash("sha256").update(s, "utf8").digest("base64")}'`;

function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp.split(";").map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name!, values];
    }),
  );
}

describe("pageSecurityHeaders", () => {
  it("allows exactly the inlined script and style blocks by hash, never unsafe-inline", () => {
    const html = renderPage({ path: "/chat", title: "Hi" }, "body{}");
    const { "Content-Security-Policy": csp } = pageSecurityHeaders(html);
    const d = directives(csp);
    const scripts = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => hash(m[1]!));
    const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => hash(m[1]!));
    expect(scripts).toHaveLength(3); // early reads, JSON config, client
    expect(styles).toHaveLength(1);
    expect(d.get("script-src")!.sort()).toEqual(scripts.sort());
    expect(d.get("style-src")).toEqual(styles);
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).not.toContain("unsafe-eval");
  });

  it("allows blob: images and shows the attach button only for an entry with a media block", () => {
    const off = renderPage({ path: "/chat" }, "");
    const on = renderPage({ path: "/chat", media: { maxBytes: 1000, types: ["image"] } }, "");
    const noKinds = renderPage({ path: "/chat", media: { maxBytes: 1000, types: [] } }, "");
    const imgSrc = (html: string) =>
      directives(pageSecurityHeaders(html)["Content-Security-Policy"]).get("img-src");
    expect(imgSrc(off)).toEqual(["'self'", "data:"]);
    expect(imgSrc(noKinds)).toEqual(["'self'", "data:"]);
    expect(imgSrc(on)).toEqual(["'self'", "data:", "blob:"]);
    expect(off).not.toContain('id="attach-btn"');
    expect(noKinds).not.toContain('id="attach-btn"');
    expect(on).toContain('id="attach-btn"');
    expect(on).toContain('id="file-tray"');
  });

  it("changes the hashes when the theme file changes", () => {
    const a = pageSecurityHeaders(renderPage({ path: "/c" }, "a{}"));
    const b = pageSecurityHeaders(renderPage({ path: "/c" }, "b{}"));
    expect(directives(a["Content-Security-Policy"]).get("style-src")).not.toEqual(
      directives(b["Content-Security-Policy"]).get("style-src"),
    );
    expect(a.ETag).not.toBe(b.ETag);
  });

  it("locks down everything else", () => {
    const d = directives(pageSecurityHeaders(renderPage({ path: "/c" }, ""))["Content-Security-Policy"]);
    expect(d.get("default-src")).toEqual(["'none'"]);
    expect(d.get("connect-src")).toEqual(["'self'"]);
    expect(d.get("base-uri")).toEqual(["'none'"]);
    expect(d.get("form-action")).toEqual(["'self'"]);
    expect(d.get("frame-ancestors")).toEqual(["'none'"]);
    expect(d.get("img-src")).toEqual(["'self'", "data:"]);
  });

  it("adds the icon's origin to img-src only for an http(s) icon", () => {
    const remote = directives(
      pageSecurityHeaders(
        renderPage(
          { path: "/c", icon: { kind: "image", src: "https://cdn.example.com:8443/i/logo.png" } },
          "",
        ),
      )["Content-Security-Policy"],
    );
    expect(remote.get("img-src")).toEqual(["'self'", "data:", "https://cdn.example.com:8443"]);
    const local = directives(
      pageSecurityHeaders(renderPage({ path: "/c", icon: { kind: "image", src: "/logo.svg" } }, ""))[
        "Content-Security-Policy"
      ],
    );
    expect(local.get("img-src")).toEqual(["'self'", "data:"]);
  });

  it("gives a strong ETag that follows the bytes", () => {
    const html = renderPage({ path: "/c" }, "");
    const { ETag } = pageSecurityHeaders(html);
    expect(ETag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(pageSecurityHeaders(html).ETag).toBe(ETag);
    expect(pageSecurityHeaders(`${html} `).ETag).not.toBe(ETag);
  });
});
