// A gateway scheduler a test drives by hand: tasks run only when the test says, and the delays they
// ask for advance a virtual clock instead of real timers. "Calls per minute" is then counted per
// round against a fake, with no timing in the assertion.
import type { GatewayScheduler, IntervalTask, SelfSchedulingTask } from "@agentsvc/session-core";

export class ManualScheduler implements GatewayScheduler {
  /** Virtual milliseconds: the sum of the delays the self-scheduling tasks asked for. */
  clock = 0;
  readonly #self = new Map<string, SelfSchedulingTask>();
  readonly #every = new Map<string, IntervalTask>();
  readonly #controller = new AbortController();

  every(name: string, _intervalMs: number, task: IntervalTask): void {
    this.#every.set(name, task);
  }

  schedule(name: string, _firstDelayMs: number, task: SelfSchedulingTask): void {
    this.#self.set(name, task);
  }

  cancel(name: string): boolean {
    return this.#self.delete(name) || this.#every.delete(name);
  }

  list() {
    return [...this.#self.keys()].map((name) => ({
      name,
      kind: "self" as const,
      runs: 0,
      errors: 0,
      running: false,
    }));
  }

  /**
   * Runs the self-scheduling task `name` round after round until the virtual clock passes `ms` or the
   * task stops; a round that asks for no delay (a long-poll that found nothing) counts `idleMs`.
   * Returns the number of rounds.
   */
  async runFor(name: string, ms: number, idleMs: number): Promise<number> {
    const until = this.clock + ms;
    let rounds = 0;
    while (this.clock < until) {
      const task = this.#self.get(name);
      if (!task) break;
      const delay = await task(this.#controller.signal);
      rounds += 1;
      if (delay === null) {
        this.#self.delete(name);
        break;
      }
      this.clock += delay === 0 ? idleMs : delay;
    }
    return rounds;
  }

  /** Aborts every task's signal (the gateway's stop). */
  stop(): void {
    this.#controller.abort();
  }
}
