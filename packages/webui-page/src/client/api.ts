// The page's client for `<path>/api`. Every call carries the stored API key; a 401 is reported to
// `onAuth` by its code (api_key_required or sign_in_required) before the error is thrown.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** What `POST /files` answers: the stored file a message may name. */
export interface UploadedFile {
  id: string;
  name: string;
  contentType: string;
  kind: string;
  size: number;
}

export type AuthCode = "api_key_required" | "sign_in_required";

export class Api {
  constructor(
    private readonly base: string,
    private readonly key: () => string | null,
    private readonly onAuth: (code: AuthCode, message: string) => void,
  ) {}

  private headers(extra: Record<string, string>): Record<string, string> {
    const headers = { ...extra };
    const key = this.key();
    if (key) headers["X-API-Key"] = key;
    return headers;
  }

  private async send(
    method: string,
    route: string,
    body: unknown,
    accept: string,
    signal?: AbortSignal,
    quiet = false,
    extra: Record<string, string> = {},
  ) {
    const sent = fetch(this.base + route, {
      method,
      headers: this.headers(
        body === undefined
          ? { Accept: accept, ...extra }
          : { Accept: accept, "Content-Type": "application/json", ...extra },
      ),
      body: body === undefined ? null : JSON.stringify(body),
      credentials: "same-origin",
      signal: signal ?? null,
    });
    return this.settle(sent, quiet);
  }

  /** A response as `send` treats it: network failure and non-2xx become ApiError, a 401 is reported. */
  private async settle(sent: Promise<Response>, quiet: boolean): Promise<Response> {
    let res: Response;
    try {
      res = await sent;
    } catch (err) {
      if (err instanceof DOMException && err.name === "AbortError") throw err;
      throw new ApiError(0, "network", "Could not reach the chat service.");
    }
    if (!res.ok) throw await this.failure(res, quiet);
    return res;
  }

  private async failure(res: Response, quiet: boolean): Promise<ApiError> {
    let code = `http_${res.status}`;
    let message = `The chat service answered ${res.status}.`;
    try {
      const body = (await res.json()) as { error?: { code?: unknown; message?: unknown } };
      if (typeof body.error?.code === "string") code = body.error.code;
      if (typeof body.error?.message === "string") message = body.error.message;
    } catch {
      // Not JSON: keep the generic message.
    }
    if (!quiet && res.status === 401 && (code === "api_key_required" || code === "sign_in_required"))
      this.onAuth(code, message);
    return new ApiError(res.status, code, message);
  }

  /** `quiet`: a 401 is only thrown, not reported (a speculative read must not open a prompt). */
  async get<T>(route: string, query: Record<string, string> = {}, quiet = false): Promise<T> {
    const qs = new URLSearchParams(query).toString();
    const path = qs ? `${route}?${qs}` : route;
    const res = await this.send("GET", path, undefined, "application/json", undefined, quiet);
    return (await res.json()) as T;
  }

  /**
   * A GET already sent (by early.ts), handled exactly as `get` would handle its own; a 2xx body is
   * the one early.ts parsed (a 2xx body that is not JSON rejects, as `res.json()` would).
   */
  async adopt<T>(sent: { response: Promise<Response>; body: Promise<unknown> }, quiet = false): Promise<T> {
    await this.settle(sent.response, quiet);
    return (await sent.body) as T;
  }

  async post<T>(route: string, body: unknown = {}): Promise<T> {
    const res = await this.send("POST", route, body, "application/json");
    return (await res.json()) as T;
  }

  /**
   * Uploads one file (`POST /files`, the file itself as the body) with progress. XMLHttpRequest,
   * because fetch reports no upload progress. Failures become ApiError as elsewhere.
   */
  upload(file: File, onProgress: (fraction: number) => void, signal: AbortSignal): Promise<UploadedFile> {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open("POST", `${this.base}/files`);
      const headers = this.headers({
        Accept: "application/json",
        "Content-Type": file.type || "application/octet-stream",
        "X-File-Name": encodeURIComponent(file.name),
      });
      for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
      xhr.upload.onprogress = (e) => {
        if (e.lengthComputable) onProgress(e.loaded / e.total);
      };
      xhr.onerror = () => reject(new ApiError(0, "network", "Could not reach the chat service."));
      xhr.onabort = () => reject(new DOMException("upload cancelled", "AbortError"));
      xhr.onload = () => {
        const res = new Response(xhr.responseText, { status: xhr.status });
        if (res.ok) resolve(res.json().then((b: { file: UploadedFile }) => b.file));
        else this.failure(res, false).then(reject, reject);
      };
      signal.addEventListener("abort", () => xhr.abort(), { once: true });
      xhr.send(file);
    });
  }

  /** A stored file's bytes (with the key header an <img> could not send), as a blob: URL. */
  async fileUrl(id: string, name: string): Promise<string> {
    const route = `/files/${encodeURIComponent(id)}/${encodeURIComponent(name)}`;
    const res = await this.send("GET", route, undefined, "*/*");
    return URL.createObjectURL(await res.blob());
  }

  /** Starts an SSE response (POST); the caller reads the body. */
  stream(
    route: string,
    body: unknown,
    signal: AbortSignal,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    return this.send("POST", route, body, "text/event-stream", signal, false, headers);
  }
}
