// JSON-RPC 2.0 over the daemon's POST /api/v1/rpc route. Failures go through session-core's one
// classifier; Signal adds only its JSON-RPC codes: a malformed call never succeeds, anything else
// the daemon reports (untrusted identity, rate limit, network to Signal) may pass later. Calls go
// through adapter-kit's fetchForSend (its keep-alive transport: a redirect answered, not followed),
// or the entry's own `fetch` when the gateway was given one (tests).
import {
  fetchForSend,
  GatewaySendError,
  HttpAnswer,
  type PlatformAnswer,
  type PlatformRule,
  type SendFailureOptions,
  sendFailure,
} from "@agentsvc/adapter-kit";

/** JSON-RPC codes for a call that is wrong in itself (parse, request, method, params). */
const PERMANENT_CODES = new Set([-32700, -32600, -32601, -32602]);

/** Signal's codes: the JSON-RPC error codes of the call; HTTP statuses take the shared defaults. */
export const signalRule: PlatformRule = (facts) => {
  if (typeof facts.code !== "number") return undefined;
  return PERMANENT_CODES.has(facts.code) ? { kind: "permanent" } : { kind: "retry" };
};

/** A JSON-RPC error answer of the daemon, classified for the outbox. */
export class SignalRpcError extends GatewaySendError {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(`signal-cli ${method} failed: ${message} (JSON-RPC error ${code})`, {
      permanent: signalRule({ code })?.kind === "permanent",
    });
    this.name = "SignalRpcError";
  }
}

let nextId = 1;

export async function callRpc(
  baseUrl: string,
  method: string,
  params: Record<string, unknown>,
  fetchImpl: typeof fetch | undefined,
  signal?: AbortSignal,
): Promise<unknown> {
  const id = nextId++;
  const url = `${baseUrl}/api/v1/rpc`;
  const init = {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", method, params, id }),
  };
  const o = { platform: "signal", call: method, platformRule: signalRule };
  let res: PlatformAnswer;
  if (!fetchImpl) res = await fetchForSend(url, init, o, signal);
  else
    try {
      res = await fetchImpl(url, { ...init, ...(signal ? { signal } : {}) });
    } catch (err) {
      throw sendFailure({ network: true, detail: `daemon unreachable at ${baseUrl}` }, { ...o, cause: err });
    }
  if (!res.ok) {
    // Not read: a fetch answer's stream cancelled, the transport's dropped as it arrives.
    if (res instanceof HttpAnswer) res.discard();
    else await (res as Response).body?.cancel();
    throw sendFailure({ status: res.status, retryAfter: res.headers.get("retry-after") }, o);
  }
  const answer = (await readAnswer(res, o)) as {
    result?: unknown;
    error?: { code?: number; message?: string; data?: unknown };
  };
  if (answer.error) {
    throw new SignalRpcError(
      method,
      Number(answer.error.code ?? 0),
      String(answer.error.message ?? "error"),
      answer.error.data,
    );
  }
  return answer.result;
}

/**
 * A 2xx answer's JSON-RPC body. A body that breaks off is the daemon's network failure (retried; on the
 * transport fetchForSend has classified it, and one over the transport's cap); one that is not JSON the
 * daemon's answer's failure: each a send failure the outbox classifies, never a raw error.
 */
async function readAnswer(res: PlatformAnswer, o: SendFailureOptions): Promise<unknown> {
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    if (err instanceof GatewaySendError) throw err;
    throw sendFailure({ network: true, detail: "the answer broke off" }, { ...o, cause: err });
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw sendFailure({ status: res.status, detail: "unreadable answer" }, { ...o, cause: err });
  }
}

/** What signal-cli reports per recipient of a `send` (SendMessageResult types). */
const RESULT_FAILURES: Record<string, "retry" | "permanent"> = {
  NETWORK_FAILURE: "retry",
  RATE_LIMIT_FAILURE: "retry",
  // Needs a captcha or a push challenge answered by the operator; a later try may pass.
  PROOF_REQUIRED_FAILURE: "retry",
  // Not a Signal user: never succeeds.
  UNREGISTERED_FAILURE: "permanent",
  // The safety number changed: the operator must `signal-cli trust` it first.
  IDENTITY_FAILURE: "permanent",
};

interface SendResults {
  timestamp?: number;
  results?: { type?: string }[];
}

/**
 * A `send` answered without a JSON-RPC error may still have reached nobody: each recipient has a
 * result type. Throws the outbox's error when no recipient got it; returns the message timestamp.
 */
export function checkSendResults(result: unknown): number | undefined {
  const { timestamp, results } = (result ?? {}) as SendResults;
  const failed = (results ?? []).filter((r) => r.type !== undefined && r.type !== "SUCCESS");
  if (results && results.length > 0 && failed.length === results.length) {
    const type = failed[0]?.type ?? "UNKNOWN";
    const verdict = RESULT_FAILURES[type] ?? "retry";
    throw new GatewaySendError(`signal-cli send reached no recipient: ${type}`, {
      permanent: verdict === "permanent",
    });
  }
  return timestamp;
}
