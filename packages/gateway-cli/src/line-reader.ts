// Reads an input stream line by line on demand, so a prompt can wait for exactly one answer.
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";

export class LineReader {
  readonly #lines: string[] = [];
  readonly #waiters: ((line: string | undefined) => void)[] = [];
  #closed = false;
  readonly #rl;

  constructor(input: Readable) {
    this.#rl = createInterface({ input, terminal: false, crlfDelay: Number.POSITIVE_INFINITY });
    this.#rl.on("line", (line) => {
      const waiter = this.#waiters.shift();
      if (waiter) waiter(line);
      else this.#lines.push(line);
    });
    this.#rl.on("close", () => {
      this.#closed = true;
      for (const w of this.#waiters.splice(0)) w(undefined);
    });
  }

  /** The next line, or undefined once the input has ended. */
  next(): Promise<string | undefined> {
    const line = this.#lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.#closed) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  close(): void {
    this.#rl.close();
  }
}
