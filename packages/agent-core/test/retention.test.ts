import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RetentionQueue } from "../src/retention.js";

describe("RetentionQueue", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("evicts each entry once its ttl has passed, in finish order, with one timer", () => {
    const evicted: string[] = [];
    const queue = new RetentionQueue(1000, 100, (id) => evicted.push(id));
    queue.add("a");
    vi.advanceTimersByTime(400);
    queue.add("b");
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(599);
    expect(evicted).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(evicted).toEqual(["a"]);
    vi.advanceTimersByTime(400);
    expect(evicted).toEqual(["a", "b"]);
    expect(queue.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("past max evicts the oldest at once", () => {
    const evicted: string[] = [];
    const queue = new RetentionQueue(60_000, 2, (id) => evicted.push(id));
    queue.add("a");
    queue.add("b");
    queue.add("c");
    expect(evicted).toEqual(["a"]);
    expect(queue.size).toBe(2);
  });

  it("past a large cap evicts the oldest and 1% more in one go, never a newer one", () => {
    const evicted: string[] = [];
    const queue = new RetentionQueue(60_000, 200, (id) => evicted.push(id));
    for (let i = 0; i < 200; i++) queue.add(`r${i}`);
    expect(evicted).toEqual([]);
    queue.add("r200");
    expect(evicted).toEqual(["r0", "r1", "r2"]);
    expect(queue.size).toBe(198);
  });

  it("re-adding restarts an entry's ttl and a removed entry is never evicted", () => {
    const evicted: string[] = [];
    const queue = new RetentionQueue(1000, 100, (id) => evicted.push(id));
    queue.add("a");
    queue.add("b");
    vi.advanceTimersByTime(500);
    queue.add("a");
    queue.remove("b");
    vi.advanceTimersByTime(600);
    expect(evicted).toEqual([]);
    vi.advanceTimersByTime(400);
    expect(evicted).toEqual(["a"]);
  });

  it("past maxBytes evicts the oldest until the rest fit, keeping the newest whatever its size", () => {
    const evicted: string[] = [];
    const queue = new RetentionQueue(60_000, 100, (id) => evicted.push(id), 1000);
    queue.add("a", 400);
    queue.add("b", 400);
    expect(evicted).toEqual([]);
    queue.add("c", 400);
    expect(evicted).toEqual(["a"]);
    expect(queue.heldBytes).toBe(800);
    queue.add("huge", 5000);
    expect(evicted).toEqual(["a", "b", "c"]);
    expect(queue.heldBytes).toBe(5000);
    // A run that runs again leaves the count.
    queue.remove("huge");
    expect(queue.heldBytes).toBe(0);
  });
});
