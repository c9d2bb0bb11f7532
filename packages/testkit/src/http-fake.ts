// What every platform fake shares: its 127.0.0.1 server, its base URL, failures on command, close.
import type { IncomingMessage, ServerResponse } from "node:http";
import { FailureQueue } from "./http-util.js";
import { type FakeServer, listenLocal } from "./server.js";

export abstract class HttpFake {
  protected readonly failures = new FailureQueue();
  #server: FakeServer | undefined;

  /** Answers one request to the platform's API. */
  protected abstract serve(req: IncomingMessage, res: ServerResponse): Promise<void>;

  protected async listen(): Promise<void> {
    this.#server = await listenLocal((req, res) => {
      void this.serve(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
  }

  /** `http://127.0.0.1:<port>`: the API base URL to give the gateway. */
  get url(): string {
    if (!this.#server) throw new Error(`${this.constructor.name} is not started`);
    return this.#server.url;
  }

  /** The next API call answers `status` (a 429 carries `Retry-After`, 1 s unless given). */
  failNext(status: number, retryAfterSeconds?: number): void {
    this.failures.push(status, retryAfterSeconds);
  }

  async close(): Promise<void> {
    await this.#server?.close();
  }
}
