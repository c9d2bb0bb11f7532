// JSON-RPC 2.0 over the daemon's POST /api/v1/rpc route. Errors become GatewaySendError so the
// session's outbox knows whether to retry: malformed calls never succeed, everything else may.
import { GatewaySendError } from "@agentsvc/session-core";

/** JSON-RPC codes for a call that is wrong in itself (parse, request, method, params). */
const PERMANENT_CODES = new Set([-32700, -32600, -32601, -32602]);

export class SignalRpcError extends GatewaySendError {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(`signal-cli ${method} failed: ${message} (JSON-RPC error ${code})`, {
      permanent: PERMANENT_CODES.has(code),
    });
    this.name = "SignalRpcError";
  }
}

let nextId = 1;

export async function callRpc(
  baseUrl: string,
  method: string,
  params: Record<string, unknown>,
  fetchImpl: typeof fetch,
  signal?: AbortSignal,
): Promise<unknown> {
  const id = nextId++;
  let res: Response;
  try {
    res = await fetchImpl(`${baseUrl}/api/v1/rpc`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", method, params, id }),
      ...(signal ? { signal } : {}),
    });
  } catch (err) {
    throw new GatewaySendError(`signal-cli daemon unreachable at ${baseUrl} (${method})`, { cause: err });
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new GatewaySendError(`signal-cli ${method}: HTTP ${res.status}`, {
      status: res.status,
      // 4xx means the call itself is wrong (415 content type, 404 route); 5xx may pass later.
      permanent: res.status >= 400 && res.status < 500 && res.status !== 429 && res.status !== 408,
    });
  }
  const body = (await res.json()) as {
    result?: unknown;
    error?: { code?: number; message?: string; data?: unknown };
  };
  if (body.error) {
    throw new SignalRpcError(
      method,
      Number(body.error.code ?? 0),
      String(body.error.message ?? "error"),
      body.error.data,
    );
  }
  return body.result;
}
