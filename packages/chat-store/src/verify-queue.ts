// Password checks go through a small queue: PBKDF2 already runs on libuv's thread pool, but with
// no bound a burst of sign-ins fills that pool (also used by file and DNS work) and every later
// check waits behind it. The queue also records how long real checks take, so a sign-in for an
// unknown name can take as long without costing any CPU.
import { randomInt } from "node:crypto";

const SAMPLES = 16;

export class VerifyQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly durations: number[] = [];

  constructor(readonly concurrency = 2) {}

  /** Runs `task` when a slot is free; its duration becomes a timing sample. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running < this.concurrency) this.running++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    const started = performance.now();
    try {
      return await task();
    } finally {
      this.durations.push(performance.now() - started);
      if (this.durations.length > SAMPLES) this.durations.shift();
      // Hand the slot straight to the next waiter (running stays the same), else free it.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  get hasSamples(): boolean {
    return this.durations.length > 0;
  }

  /** Waits about as long as a real check would take now (a recent duration, plus the queue ahead). */
  async imitate(): Promise<void> {
    const sample = this.durations[randomInt(this.durations.length)] ?? 0;
    const ahead = Math.floor(this.waiting.length / this.concurrency);
    await new Promise((resolve) => setTimeout(resolve, sample * (1 + ahead)));
  }
}
