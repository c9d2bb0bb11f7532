/** An error a client may see: a stable code, an HTTP status and a message a person can act on. */
export class AgentsvcError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
    this.name = "AgentsvcError";
  }
}
