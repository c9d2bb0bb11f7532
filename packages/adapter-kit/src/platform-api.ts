// One platform's REST API on PlatformClient: a base URL, a bearer token, JSON both ways. `call`
// fails with PlatformCallError (a poll loop reads its facts); `send` with the outbox's
// GatewaySendError, so a reply's 429 waits and a 401 stops the gateway naming the variable.
import type { PlatformRule } from "./send-failure.js";
import {
  type PlatformCall,
  PlatformCallError,
  PlatformClient,
  type PlatformClientOptions,
} from "./platform-fetch.js";

export interface PlatformApiOptions extends PlatformClientOptions {
  /** Prefix of every path (`https://chat.example.com/api/v4`); a trailing slash is dropped. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token: string;
  /** The variable holding the token, named when the platform refuses it. */
  envVar: string;
  platformRule?: PlatformRule;
}

export class PlatformApi {
  readonly #o: PlatformApiOptions;
  readonly #client: PlatformClient;
  readonly #base: string;

  constructor(options: PlatformApiOptions) {
    this.#o = options;
    this.#client = new PlatformClient(options);
    this.#base = options.baseUrl.replace(/\/+$/, "");
  }

  /** `call` names the call in errors (`posts`, `sync`); `path` is appended to the base URL. */
  call<T>(
    call: string,
    method: string,
    path: string,
    request: Omit<PlatformCall, "method"> = {},
  ): Promise<T> {
    const headers = { authorization: `Bearer ${this.#o.token}`, ...request.headers };
    return this.#client.json<T>(call, `${this.#base}${path}`, { ...request, method, headers });
  }

  /** As `call`, failing with the outbox's error. */
  async send<T>(
    call: string,
    method: string,
    path: string,
    request: Omit<PlatformCall, "method"> = {},
  ): Promise<T> {
    try {
      return await this.call<T>(call, method, path, request);
    } catch (err) {
      if (!(err instanceof PlatformCallError)) throw err;
      throw err.toSendError({
        envVar: this.#o.envVar,
        ...(this.#o.platformRule ? { platformRule: this.#o.platformRule } : {}),
      });
    }
  }
}
