// The public REST API (/v1) and nothing else: every call carries the API key; errors are ApiError.
const KEY_STORAGE = "pulvezar.key";
export const DEFAULT_KEY = "local-dev-key"; // what `make run` accepts without configuration

export class ApiError extends Error {
  /** A problem document (RFC 9457): status, detail, errors [{field, reason}]. */
  constructor(status, problem) {
    super(problem?.detail || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
    this.errors = this.problem.errors || [];
  }
}

export function apiKey() {
  return localStorage.getItem(KEY_STORAGE) || DEFAULT_KEY;
}

export function setApiKey(key) {
  if (key) localStorage.setItem(KEY_STORAGE, key);
  else localStorage.removeItem(KEY_STORAGE);
}

let onUnauthorized = null;
/** Called (once per failing request) when the key is refused: the app asks for another. */
export function whenUnauthorized(fn) {
  onUnauthorized = fn;
}

function headers(extra) {
  return { "X-API-Key": apiKey(), "Accept-Language": document.documentElement.lang || "en", ...extra };
}

/**
 * A JSON request: `api("/v1/hint", {method: "POST", body: {...}})`; `body` may be FormData.
 * Returns the parsed JSON (or text for non-JSON answers); throws ApiError.
 */
export async function api(path, { method = "GET", body, headers: extra = {}, signal } = {}) {
  const init = { method, headers: headers(extra), signal };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
  }
  const r = await fetch(path, init);
  const type = r.headers.get("content-type") || "";
  const data = type.includes("json") ? await r.json() : await r.text();
  if (!r.ok) {
    if (r.status === 401 && onUnauthorized) onUnauthorized();
    throw new ApiError(r.status, typeof data === "object" ? data : { detail: data });
  }
  return data;
}

/** A picture or file of the API (`GET path`) as a Blob (a PNG to share); throws ApiError. */
export async function apiBlob(path) {
  const r = await fetch(path, { headers: headers() });
  if (!r.ok) {
    if (r.status === 401 && onUnauthorized) onUnauthorized();
    const type = r.headers.get("content-type") || "";
    throw new ApiError(r.status, type.includes("json") ? await r.json() : { detail: await r.text() });
  }
  return r.blob();
}

/**
 * Server-sent events of `path` read with fetch (EventSource cannot send the key):
 * `onEvent(name, data, id)` for each; resolves when the stream ends; abort with `signal`.
 */
export async function streamEvents(path, onEvent, { signal, lastEventId } = {}) {
  const extra = lastEventId != null ? { "Last-Event-ID": String(lastEventId) } : {};
  const r = await fetch(path, { headers: headers(extra), signal });
  if (!r.ok) {
    const problem = (r.headers.get("content-type") || "").includes("json") ? await r.json() : {};
    throw new ApiError(r.status, problem);
  }
  const reader = r.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let name = "message", data = "", id = null;
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) name = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
        else if (line.startsWith("id: ")) id = line.slice(4);
      }
      if (data) onEvent(name, JSON.parse(data), id);
    }
  }
}
