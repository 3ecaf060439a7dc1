// Following a job of the API (a rollout, an analysis, a deep analysis) until it ends: one way for every view.
// The job's server-sent events (`job.events`, else `<url>/events`: every job route has them) carry each new
// state; where the stream is refused, breaks, reports an error or ends before the job did, its status is
// polled instead.
import { api, streamEvents } from "./api.js";

/** The API's job states that are not over yet; any other state (done, failed, cancelled) ends a job. */
const ACTIVE = new Set(["queued", "running"]);

/** Whether a job's status says it has ended. */
export function jobEnded(job) {
  return Boolean(job?.state) && !ACTIVE.has(job.state);
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) { reject(signal.reason); return; }
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => { clearTimeout(timer); reject(signal.reason); }, { once: true });
  });
}

/**
 * Follow the job whose status is at `url` (GET; it may carry a query, e.g. "?games=false") until it ends:
 * `onUpdate(job, event)` for its status now and for each change, where event is "progress" while it runs
 * and its end's name ("done", "failed", "cancelled") at the end. Resolves with the last status; rejects
 * with the API's error, or an AbortError when `signal` aborts. `interval`: the polling period in ms.
 */
export async function followJob(url, onUpdate, { signal, interval = 1000 } = {}) {
  const update = (job) => onUpdate(job, jobEnded(job) ? job.state : "progress");
  let job = await api(url, { signal });
  update(job);
  if (jobEnded(job)) return job;
  const stream = new AbortController(); // the outer signal's abort, or an error event, closes the stream
  const forward = () => stream.abort(signal.reason);
  signal?.addEventListener("abort", forward, { once: true });
  try {
    await streamEvents(job.events || `${url.split("?")[0]}/events`, (name, data) => {
      if (stream.signal.aborted) return;
      if (name === "error" || !data?.state) { stream.abort(); return; } // the stream gave up: poll
      job = data;
      onUpdate(data, name);
    }, { signal: stream.signal });
  } catch (e) {
    if (signal?.aborted) throw e;
    // the stream was refused or broke: the status is polled below
  } finally {
    signal?.removeEventListener("abort", forward);
  }
  while (!jobEnded(job)) {
    await sleep(interval, signal);
    job = await api(url, { signal });
    update(job);
  }
  return job;
}
