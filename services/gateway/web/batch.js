// The batch part of the analysis view (views/analysis.js; a module of its own, as views import no view): a job made of an uploaded stream of matches (.ogxms, .ogxms.zst) or a
// zip has `streams` (each one's skipped members and truncated tail) and `players` (each player across its
// finished matches). Shown here: matches done of total, the per-player table, the skipped parts with why,
// the per-match results as CSV and JSON lines (GET /v1/analyses/{id}/results.csv|.jsonl), and every match,
// each opened as a single analysis by the analysis view.
import { api, apiKey, ApiError } from "./api.js";
import { toast } from "./shell.js";
import { t } from "./i18n.js";
import { h, fmtEq, fmtNum, problemText, saveBlob } from "./ui.js";

/** Whether a job is a batch: its upload was a stream of matches or a zip. */
export function isBatch(job) {
  return Array.isArray(job?.streams);
}

/** "3 of 5 matches analysed" (a match is done once each of its games is). */
export function batchProgress(job) {
  const matches = job.matches || [];
  return t("analysis.batch_progress", { done: matches.filter((m) => m.state === "done").length, total: matches.length });
}

/** Match `m` of `job` with its games: fetched (GET /v1/analyses/{id}?match=N) unless it has them; false when
 *  that failed (a toast says why). */
export async function withGames(job, m, signal) {
  if (m.games) return true;
  try {
    const one = await api(`/v1/analyses/${encodeURIComponent(job.id)}?match=${m.match}`, { signal });
    m.games = one.matches?.[m.match]?.games || [];
    return true;
  } catch (e) {
    if (e.name !== "AbortError") toast(problemText(e), "error");
    return false;
  }
}

/** The batch's panel; `openMatch(m)` shows one match as a single analysis (null: a running job's panel,
 *  without the matches' buttons). */
export function batchPanel(job, openMatch, signal) {
  return h("section", { class: "an-batch", id: "an-batch", "aria-labelledby": "an-batch-title" },
    h("h2", { id: "an-batch-title" }, t("analysis.batch_title")),
    h("p", { class: "muted", id: "an-batch-progress" }, batchProgress(job)),
    downloads(job, signal), playersTable(job.players || []), streamsList(job.streams), openMatch ? matchList(job, openMatch) : null);
}

function playersTable(players) {
  if (!players.length) return h("p", { class: "muted" }, t("analysis.batch_no_players"));
  const cols = [
    ["analysis.batch_player", (p) => p.name],
    ["analysis.batch_matches", (p) => String(p.matches.length)],
    ["analysis.batch_decisions", (p) => String(p.decisions)],
    ["analysis.batch_pr", (p) => fmtNum(p.pr)],
    ["analysis.batch_errors", (p) => String(p.errors)],
    ["analysis.batch_blunders", (p) => String(p.blunders)],
    ["analysis.batch_luck", (p) => fmtEq(p.luck_net_points, 2)],
  ];
  return h("div", { class: "an-table-wrap" }, h("table", { class: "an-players an-batch-players", id: "an-batch-players" },
    h("caption", {}, t("analysis.batch_players")),
    h("thead", {}, h("tr", {}, cols.map(([key]) => h("th", { scope: "col" }, t(key))))),
    h("tbody", {}, players.map((p) => h("tr", { dataset: { player: p.name } },
      cols.map(([, f], i) => (i === 0 ? h("th", { scope: "row" }, f(p)) : h("td", {}, f(p)))))))));
}

/** Each uploaded stream: its matches, the members skipped and where it stopped, with the reasons. */
function streamsList(streams) {
  return h("div", { class: "an-streams", id: "an-streams" }, streams.map((s) => {
    const parts = s.skipped.map((m) => h("li", { class: "an-skipped" },
      m.member == null ? t("analysis.batch_skipped_gap", { offset: m.offset }) : t("analysis.batch_skipped", { member: m.member + 1, offset: m.offset }),
      ": ", m.reason));
    if (s.truncated) parts.push(h("li", { class: "an-truncated" }, t("analysis.batch_truncated", { offset: s.truncated.offset }), ": ", s.truncated.reason));
    return h("div", { class: "an-stream" },
      h("p", {}, t("analysis.batch_stream", { name: s.filename || s.field, n: s.matches })),
      parts.length ? h("ul", {}, parts) : h("p", { class: "muted" }, t("analysis.batch_complete")));
  }));
}

function downloads(job, signal) {
  const base = `/v1/analyses/${encodeURIComponent(job.job_id || job.id)}/results`;
  const link = (fmt, key) => {
    const a = h("a", { href: `${base}.${fmt}`, id: `an-results-${fmt}`, class: "an-download" }, t(key));
    a.addEventListener("click", (e) => { e.preventDefault(); save(`${base}.${fmt}`, `${job.job_id || job.id}-results.${fmt}`, signal); });
    return a;
  };
  return h("p", { class: "an-downloads" }, link("csv", "analysis.batch_csv"), " · ", link("jsonl", "analysis.batch_jsonl"));
}

// the API wants its key in a header: the file is fetched, then saved from a blob
async function save(path, filename, signal) {
  try {
    const r = await fetch(path, { headers: { "X-API-Key": apiKey() }, signal });
    if (!r.ok) throw new ApiError(r.status, (r.headers.get("content-type") || "").includes("json") ? await r.json() : {});
    saveBlob(await r.blob(), filename);
  } catch (e) {
    if (e.name !== "AbortError") toast(problemText(e), "error");
  }
}

function matchList(job, openMatch) {
  return h("ol", { class: "an-batch-matches", id: "an-batch-matches" }, (job.matches || []).map((m) => {
    const open = h("button", { type: "button", class: "an-open-match", disabled: !m.games_done, onclick: () => openMatch(m) }, t("analysis.batch_open"));
    const pr = (m.summary?.players || []).map((p) => t("analysis.batch_match_pr", { p: p.name, pr: fmtNum(p.pr) })).join(" · ");
    const state = t("analysis.batch_match_state", { state: t(`analysis.state_${m.state}`), done: m.games_done, total: m.games_total });
    return h("li", { class: "an-batch-match", dataset: { match: m.match } },
      h("span", { class: "an-job-name" }, m.players.join(" – ")),
      h("span", { class: `an-state ${m.state}` }, state), pr ? h("span", { class: "muted" }, pr) : "", open);
  }));
}
