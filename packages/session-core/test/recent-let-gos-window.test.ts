// The window of RecentLetGos (recent-let-gos.ts) at its edge: an announcement is looked at for
// RECENT_LET_GO_MS after the let-go, that moment included, however many other threads are let go
// meanwhile (the pruning a later let-go does keeps what `has` still answers true for).
import { describe, expect, it } from "vitest";
import { RECENT_LET_GO_MS, RecentLetGos } from "../src/recent-let-gos.js";

describe("threads let go a moment ago, at the window's edge", () => {
  it("a thread let go exactly RECENT_LET_GO_MS ago is still recent after another thread's let-go at that moment", () => {
    const recent = new RecentLetGos();
    recent.add("t1", 1_000);
    recent.add("t2", 1_000 + RECENT_LET_GO_MS);
    expect(recent.has("t1", 1_000 + RECENT_LET_GO_MS)).toBe(true);
    expect(recent.has("t1", 1_001 + RECENT_LET_GO_MS)).toBe(false);
  });
});
