// Match analysis: upload a .mat/.sgf/.xg file (POST /v1/analyses), watch the job (server-sent events), then the
// players' PR, error rate, grade and luck, the errors with small boards, the equity and luck graph and the
// annotated SGF. "Your jobs" (GET /v1/analyses) can be reopened or cancelled. The address carries the job:
// /?view=analysis&job=<id>.
import { api, ApiError } from "../api.js";
import { followJob, jobEnded } from "../jobs.js";
import { remember, toast } from "../shell.js";
import { t, lang } from "../i18n.js";
import { drawBoard, boardFromPosition, arrowsOfNotation } from "../board.js";
import { h, decodePositionId, decodeMatchCube, fmtEq, fmtNum, problemText, saveBlob } from "../ui.js";
import { isBatch, batchProgress, batchPanel, withGames } from "../batch.js";
import { currentPlayer } from "../players.js";


// ---- the explanation in the UI's language, from the analysis' structured reasons ------------------------
const n0 = (x) => Math.round(x);
const pc = (x) => Math.round(100 * x);
/** The language of the API's own explanation text (`explanation`, beside the structured reasons). */
const API_TEXT_LANGUAGE = "en";

/** One reason {code, better, other, point} as a phrase ("hits 2 blots"): analysis.why.<code>, n/m the values. */
function reasonText(r) {
  const key = `analysis.why.${r.code === "hits" && r.other ? "hits_instead" : r.code}`;
  const scale = r.code.startsWith("gammon_") ? pc : n0;
  const text = t(key, { n: scale(r.better), m: scale(r.other), point: r.point });
  return text === key ? r.code : text;
}

/** The sentence "X is better than Y: it ..." in the UI's language from {code, better, other, point} reasons. */
function explainReasons(better, other, reasons, fallback = "") {
  if (!reasons || !reasons.length) {
    if (fallback && lang() === API_TEXT_LANGUAGE) return fallback;
    return fallback ? t("analysis.why.none", { better, other }) : "";
  }
  return t("analysis.why.sentence", { better, other, reasons: reasons.map(reasonText).join(t("analysis.why.and")) });
}

// ---- the view -------------------------------------------------------------------------------------------
const ANALYSIS_DEPTHS = ["0ply", "1ply", "2ply"];
const NS = "http://www.w3.org/2000/svg";

function svg(name, attrs = {}, parent = null) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) if (v != null) e.setAttribute(k, String(v));
  if (parent) parent.append(e);
  return e;
}

function stateText(state) {
  return t(`analysis.state_${state}`) === `analysis.state_${state}` ? state : t(`analysis.state_${state}`);
}


// The view's state: v = {controller, jobId, watch (the AbortController of the job being watched), cursor,
// loads, jobBox, jobsList, moreButton}; each panel below is a function of it.
export async function mount(el, params) {
  const v = { controller: new AbortController(), jobId: params.job || null, watch: null, cursor: null, loads: 0 };
  el.classList.add("an-view");
  const form = uploadForm(v);
  const jobsBox = jobsPanel(v);
  v.jobBox = h("section", { class: "an-job", id: "an-job", "aria-live": "polite" });
  el.append(h("h1", {}, t("analysis.title")), form, jobsBox, v.jobBox);
  loadJobs(v);
  if (v.jobId) openJob(v, v.jobId);
  return () => { v.controller.abort(); if (v.watch) v.watch.abort(); };
}

// ---- the upload form
function uploadForm(v) {
  const fileInput = h("input", { type: "file", id: "an-file", name: "file", accept: ".mat,.txt,.sgf,.xg,.gmd,.bgf,.ogxm,.ogxms,.ogxms.zst,.zst,.zip", required: true });
  const levelSelect = h("select", { id: "an-level", name: "level" }, ANALYSIS_DEPTHS.map((l) => h("option", { value: l }, l)));
  levelSelect.value = "1ply";
  const submit = h("button", { type: "submit", id: "an-submit" }, t("analysis.submit"));
  // "which player are you?": the name in the file (compared without case); empty: the player's own name
  const me = h("input", { id: "an-me", name: "player_name", maxlength: 100, autocomplete: "off", placeholder: t("analysis.me_default") });
  const player = currentPlayer();
  const form = h("form", { class: "an-upload", id: "an-form" },
    h("h2", {}, t("analysis.upload")),
    h("div", { class: "an-fields" },
      h("label", { for: "an-file" }, t("analysis.file")), fileInput,
      h("label", { for: "an-level" }, t("analysis.level")), levelSelect,
      player ? [h("label", { for: "an-me" }, t("analysis.me")), me] : [],
      submit));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const file = fileInput.files[0];
    if (!file) { toast(t("analysis.no_file"), "error"); fileInput.focus(); return; }
    const body = new FormData();
    body.append("file", file, file.name);
    body.append("level", levelSelect.value);
    if (player) body.append("player", player);
    if (player && me.value.trim()) body.append("player_name", me.value.trim());
    submit.disabled = true;
    v.jobBox.replaceChildren(h("p", { class: "muted" }, t("analysis.uploading")));
    try {
      const job = await api("/v1/analyses", { method: "POST", body, signal: v.controller.signal });
      form.reset();
      levelSelect.value = body.get("level");
      loadJobs(v);
      openJob(v, job.id);
    } catch (err) {
      if (err.name !== "AbortError") v.jobBox.replaceChildren(h("p", { class: "error-message", role: "alert" }, problemText(err)));
      const names = filePlayers(err);
      if (names) v.jobBox.append(h("p", { id: "an-which" }, t("analysis.which"), " ", names.map((n) => h("button", {
        type: "button", class: "an-me-pick", onclick: () => { me.value = n; form.requestSubmit(); } }, n))));
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}

/** The file's two players when the upload was refused for not knowing which one the player is (the API's 422
 * on player_name lists them: "... (its players: A, B); name which ..."), else null. */
function filePlayers(err) {
  const reason = err.errors?.find((x) => x.field === "player_name")?.reason || "";
  const found = /\(its players: (.*)\); name which/.exec(reason);
  return found ? found[1].split(", ") : null;
}

// ---- your jobs
function jobsPanel(v) {
  v.jobsList = h("ul", { class: "an-jobs", id: "an-jobs" });
  v.moreButton = h("button", { type: "button", id: "an-more", hidden: true }, t("analysis.more"));
  const refresh = h("button", { type: "button", class: "an-refresh" }, t("analysis.refresh"));
  refresh.addEventListener("click", () => loadJobs(v));
  v.moreButton.addEventListener("click", () => loadJobs(v, true));
  return h("section", { class: "an-jobs-box", "aria-labelledby": "an-jobs-title" },
    h("div", { class: "an-jobs-head" }, h("h2", { id: "an-jobs-title" }, t("analysis.jobs")), refresh),
    v.jobsList, v.moreButton);
}

// a newer load of the list wins: an older one that finishes later adds nothing
async function loadJobs(v, more = false) {
  const mine = ++v.loads;
  const after = more ? v.cursor : null;
  const signal = v.controller.signal;
  let page;
  try {
    page = await api(`/v1/analyses?limit=10${after ? `&cursor=${encodeURIComponent(after)}` : ""}`, { signal });
  } catch (e) {
    if (e.name !== "AbortError" && mine === v.loads) {
      if (!more) v.jobsList.replaceChildren();
      v.jobsList.append(h("li", { class: "error-message" }, problemText(e)));
    }
    return;
  }
  const details = await Promise.all(page.jobs.map((j) =>
    api(`/v1/analyses/${encodeURIComponent(j.id)}?games=false`, { signal }).catch(() => null)));
  if (mine !== v.loads) return;
  if (!more) v.jobsList.replaceChildren();
  v.cursor = page.next_cursor || null;
  v.moreButton.hidden = !v.cursor;
  if (!more && !page.jobs.length) v.jobsList.append(h("li", { class: "muted" }, t("analysis.no_jobs")));
  page.jobs.forEach((j, i) => v.jobsList.append(jobItem(v, j, details[i])));
}

function jobItem(v, j, detail) {
  const m = detail?.matches?.[0];
  const name = detail?.streams?.[0]?.filename || m?.filename || m?.players?.join(" – ") || j.id;
  const when = new Date(j.created * 1000).toLocaleString(lang());
  const state = detail?.state || j.state;
  const li = h("li", { class: `an-job-item ${j.id === v.jobId ? "current" : ""}`, dataset: { job: j.id } },
    h("span", { class: "an-job-name" }, name),
    h("span", { class: "muted" }, ` ${when} · ${detail?.level || ""} · `),
    h("span", { class: `an-state ${state}` }, stateText(state)));
  const buttons = h("span", { class: "an-job-buttons" },
    h("button", { type: "button", onclick: () => openJob(v, j.id) }, t("analysis.open")));
  if (!jobEnded({ state })) buttons.append(h("button", { type: "button", class: "an-cancel", onclick: () => cancelJob(v, j.id) }, t("analysis.cancel")));
  else buttons.append(h("button", { type: "button", class: "an-delete", onclick: () => cancelJob(v, j.id, true) }, t("analysis.delete")));
  li.append(buttons);
  return li;
}

async function cancelJob(v, id, finished = false) {
  try {
    await api(`/v1/analyses/${encodeURIComponent(id)}`, { method: "DELETE", signal: v.controller.signal });
    toast(t(finished ? "analysis.deleted" : "analysis.cancelled"));
    if (finished && id === v.jobId) { v.jobId = null; v.jobBox.replaceChildren(); remember({ view: "analysis" }); }
    else if (id === v.jobId) openJob(v, id);
    loadJobs(v);
  } catch (e) {
    if (e.name !== "AbortError") toast(problemText(e), "error");
  }
}

// ---- the job being watched: its progress, then its results
function progressBox(v, id) {
  const progress = h("progress", { max: 1, value: 0, id: "an-progress" });
  const status = h("p", { class: "an-status", id: "an-status" }, t("analysis.waiting"));
  const cancel = h("button", { type: "button", class: "an-cancel", id: "an-cancel", onclick: () => cancelJob(v, id) }, t("analysis.cancel"));
  const show = (job) => {
    progress.value = job.progress ?? 0;
    const parts = [t("analysis.state", { state: stateText(job.state) }), t("analysis.progress", { done: job.games_done ?? 0, total: job.games_total ?? "?" })];
    if (isBatch(job)) parts.push(batchProgress(job));
    if (job.eta_s != null && !jobEnded(job)) parts.push(t("analysis.eta", { s: Math.ceil(job.eta_s) }));
    status.textContent = parts.join(" · ");
    cancel.hidden = jobEnded(job);
  };
  return { box: h("div", { class: "an-progress-box" }, progress, status, cancel), show };
}

/** A running batch's panel (its players and skipped parts so far), redrawn at most once a second. */
function liveBatch(signal) {
  const box = h("div", { class: "an-batch-live" });
  let last = 0;
  const show = (job) => {
    if (!isBatch(job) || jobEnded(job) || Date.now() - last < 1000) return;
    last = Date.now();
    box.replaceChildren(batchPanel(job, null, signal));
  };
  return { box, show };
}

async function openJob(v, id) {
  if (v.watch) v.watch.abort();
  v.watch = new AbortController();
  const signal = AbortSignal.any ? AbortSignal.any([v.controller.signal, v.watch.signal]) : v.watch.signal;
  v.jobId = id;
  remember({ view: "analysis", job: id });
  for (const li of v.jobsList.querySelectorAll("li[data-job]")) li.classList.toggle("current", li.dataset.job === id);
  const { box, show } = progressBox(v, id);
  const live = liveBatch(signal);
  v.jobBox.replaceChildren(box, live.box);
  const path = `/v1/analyses/${encodeURIComponent(id)}`;
  try {
    const last = await followJob(`${path}?games=false`, (job) => { show(job); live.show(job); }, { signal });
    if (signal.aborted) return;
    // a batch's games come one match at a time (the first now, another when it is opened)
    const full = await api(isBatch(last) ? `${path}?match=0` : path, { signal });
    if (signal.aborted) return;
    renderResults(v, full);
    loadJobs(v);
  } catch (e) {
    if (e.name === "AbortError") return;
    const text = e instanceof ApiError && e.status === 404 ? t("analysis.not_found") : problemText(e);
    v.jobBox.replaceChildren(h("p", { class: "error-message", role: "alert" }, text));
  }
}

function renderResults(v, job) {
  const box = h("div", { class: "an-results", id: "an-results" });
  const head = v.jobBox.querySelector(".an-progress-box");
  v.jobBox.replaceChildren(...(head ? [head] : []), box);
  if (job.state === "failed" && job.error) box.append(h("p", { class: "error-message" }, t("analysis.failed", { e: job.error })));
  if (job.games_failed) box.append(h("p", { class: "error-message" }, t("analysis.failed_games", { n: job.games_failed })));
  const batch = isBatch(job);
  const matches = (job.matches || []).filter((m) => (batch ? m.games_done > 0 : m.games && m.games.length));
  const matchBox = h("div", { class: "an-match", id: "an-match" });
  const sel = h("select", { id: "an-match-select" }, matches.map((m) => h("option", { value: m.match }, `${m.match + 1}: ${m.member != null ? m.players.join(" – ") : m.filename || m.players.join(" – ")}`)));
  // a batch's match is loaded with its games when it is opened (from the list or the select)
  const show = async (m, scroll = false) => {
    sel.value = String(m.match);
    if (!(await withGames(job, m, v.controller.signal))) return;
    renderMatch(v, matchBox, job, m);
    if (scroll) matchBox.scrollIntoView({ block: "start" });
  };
  sel.addEventListener("change", () => show(matches.find((m) => String(m.match) === sel.value)));
  if (batch) box.append(batchPanel(job, (m) => show(m, true), v.controller.signal));
  if (!matches.length) return;
  if (matches.length > 1) box.append(h("label", {}, t("analysis.match"), " ", sel));
  box.append(matchBox);
  show(matches[0]);
}

// ---- one match: the players' table, the annotated SGF, the graph and the errors
function renderMatch(v, box, job, m) {
  box.replaceChildren();
  const players = m.players || ["?", "?"];
  const desc = m.length ? t("analysis.match_of", { players: players.join(" – "), n: m.length, level: job.level })
    : t("analysis.money", { players: players.join(" – "), level: job.level });
  box.append(h("h2", {}, m.filename || players.join(" – ")), h("p", { class: "muted" }, desc));
  box.append(playerTable(m));
  if (m.state === "done") {
    const dl = h("button", { type: "button", id: "an-sgf", class: "an-sgf" }, t("analysis.download"));
    dl.addEventListener("click", () => downloadSgf(v, m));
    box.append(dl);
  }
  const decisions = m.games.flatMap((g) => g.decisions || []);
  box.append(graph(m, decisions));
  box.append(errorList(m, decisions, { job: job.id, match: m.match ?? 0 }));
}

function playerTable(m) {
  const ps = m.summary?.players || m.games[0]?.players?.map((p, i) => ({ name: m.players[i], ...p })) || [];
  const rows = [
    ["analysis.pr", (p) => fmtNum(p.pr)],
    ["analysis.error_rate", (p) => fmtNum(p.error_rate, 1)],
    ["analysis.grade", (p) => p.grade || "–"],
    ["analysis.decisions", (p) => p.decisions ?? "–"],
    ["analysis.errors_n", (p) => p.errors ?? "–"],
    ["analysis.blunders_n", (p) => p.blunders ?? "–"],
    ["analysis.luck", (p) => fmtEq(p.luck?.net_points, 2)],
    ["analysis.result", (p) => (p.result_points == null ? "–" : fmtNum(p.result_points, 0))],
    ["analysis.luck_adj", (p) => fmtEq(p.luck_adjusted, 2)],
  ];
  return h("div", { class: "an-table-wrap" }, h("table", { class: "an-players", id: "an-players" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("analysis.players")), ps.map((p, i) => h("th", { scope: "col" }, p.name || m.players[i])))),
    h("tbody", {}, rows.map(([key, f]) => h("tr", { dataset: { row: key.slice("analysis.".length) } }, h("th", { scope: "row" }, t(key)), ps.map((p) => h("td", {}, String(f(p)))))))));
}

async function downloadSgf(v, m) {
  try {
    const text = await api(m.sgf, { signal: v.controller.signal });
    const stem = (m.filename || `match-${m.match}`).replace(/\.[^.]*$/, "").replace(/[^A-Za-z0-9_.-]+/g, "_");
    saveBlob(new Blob([text], { type: "application/x-go-sgf" }), `${stem}-analysis.sgf`);
  } catch (e) {
    if (e.name !== "AbortError") toast(problemText(e), "error");
  }
}

// ---- the equity and luck graph
/** The series of the graph: the played equities and the running luck (player 0's view), the marked errors,
 *  the first x of each game. */
function graphSeries(decisions) {
  const eqPts = [], luckPts = [], marks = [], games = [];
  let luck = 0, x = 0, lastGame = -1;
  for (const d of decisions) {
    if (d.game !== lastGame) { games.push([x, d.game]); lastGame = d.game; }
    const sign = d.player === 0 ? 1 : -1;
    if (d.luck && d.luck.value != null) luck += sign * (d.luck.points ?? d.luck.value);
    if (d.kind === "checker" && d.played_equity != null) {
      eqPts.push([x, sign * d.played_equity]);
      luckPts.push([x, luck]);
      if (d.mark === "error" || d.mark === "blunder") marks.push([x, sign * d.played_equity, d]);
      x++;
    } else if (d.mark === "error" || d.mark === "blunder") {
      const e = d.cube ? sign * d.cube.nd : 0;
      marks.push([x, e, d]);
    }
  }
  return { eqPts, luckPts, marks, games, x };
}

function graph(m, decisions) {
  const p0 = m.players?.[0] || "1";
  const W = 800, H1 = 150, H2 = 90, GAP = 24, PADL = 44, PADR = 8, TOP = 8;
  const H = TOP + H1 + GAP + H2 + 22;
  const { eqPts, luckPts, marks, games, x } = graphSeries(decisions);
  const n = Math.max(1, x - 1);
  const eMax = Math.max(1, ...eqPts.map(([, y]) => Math.abs(y)));
  const lMax = Math.max(0.5, ...luckPts.map(([, y]) => Math.abs(y)));
  const X = (i) => PADL + (i / n) * (W - PADL - PADR);
  const Y1 = (y) => TOP + H1 / 2 - (y / eMax) * (H1 / 2 - 4);
  const Y2 = (y) => TOP + H1 + GAP + H2 / 2 - (y / lMax) * (H2 / 2 - 4);
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "an-graph", role: "img", "aria-labelledby": "an-graph-title an-graph-desc" });
  const title = svg("title", { id: "an-graph-title" }, s);
  title.textContent = t("analysis.graph");
  const panel = (y, hgt) => svg("rect", { x: PADL, y, width: W - PADL - PADR, height: hgt, class: "an-panel" }, s);
  panel(TOP, H1);
  panel(TOP + H1 + GAP, H2);
  svg("line", { x1: PADL, x2: W - PADR, y1: Y1(0), y2: Y1(0), class: "an-zero" }, s);
  svg("line", { x1: PADL, x2: W - PADR, y1: Y2(0), y2: Y2(0), class: "an-zero" }, s);
  const label = (x0, y0, txt, cls = "an-axis") => { const e = svg("text", { x: x0, y: y0, class: cls }, s); e.textContent = txt; return e; };
  label(4, TOP + 12, t("analysis.equity"));
  label(4, Y1(eMax) + 22, fmtEq(eMax, 1));
  label(4, Y1(-eMax), fmtEq(-eMax, 1));
  label(4, TOP + H1 + GAP + 12, t("analysis.luck_sum"));
  label(4, TOP + H1 + GAP + H2 - 2, fmtEq(-lMax, 1));
  for (const [gx, g] of games) {
    const gxx = X(Math.max(0, gx - 0.5));
    if (gx > 0) svg("line", { x1: gxx, x2: gxx, y1: TOP, y2: TOP + H1 + GAP + H2, class: "an-game-line" }, s);
    label(gxx + 3, H - 6, t("analysis.game", { n: g + 1 }), "an-axis an-game-label");
  }
  const path = (pts, Y, cls) => {
    if (!pts.length) return;
    svg("polyline", { points: pts.map(([i, y]) => `${X(i).toFixed(1)},${Y(y).toFixed(1)}`).join(" "), class: cls }, s);
  };
  path(eqPts, Y1, "an-eq-line");
  path(luckPts, Y2, "an-luck-line");
  for (const [i, y, d] of marks) {
    const c = svg("circle", { cx: X(Math.min(i, n)), cy: Y1(y), r: 5, class: `an-mark ${d.mark}` }, s);
    const tt = svg("title", {}, c);
    tt.textContent = `${t("analysis.game", { n: d.game + 1 })}, ${d.move}: ${d.played} → ${d.best} (${t(`analysis.mark_${d.mark}`)})`;
  }
  return h("figure", { class: "an-figure" }, s,
    h("figcaption", { id: "an-graph-desc", class: "muted" }, t("analysis.graph_desc", { p: p0 })));
}

// ---- the errors and blunders, each with its board
function errorList(m, decisions, at) {
  const errs = decisions.filter((d) => d.mark === "error" || d.mark === "blunder");
  const players = m.players || ["?", "?"];
  const filter = h("select", { id: "an-filter" },
    h("option", { value: "all" }, t("analysis.filter_all")),
    h("option", { value: "blunder" }, t("analysis.filter_blunders")),
    players.map((p, i) => h("option", { value: `p${i}` }, t("analysis.filter_player", { p }))));
  const list = h("ol", { class: "an-errors", id: "an-errors" });
  const render = () => {
    const v = filter.value;
    const shown = errs.filter((d) => v === "all" || (v === "blunder" ? d.mark === "blunder" : `p${d.player}` === v));
    list.replaceChildren(...shown.map((d) => errorItem(d, players, at)));
    if (!shown.length) list.append(h("li", { class: "muted an-none" }, t("analysis.none")));
  };
  filter.addEventListener("change", render);
  render();
  return h("section", { class: "an-errors-box", "aria-labelledby": "an-errors-title" },
    h("div", { class: "an-errors-head" }, h("h3", { id: "an-errors-title" }, `${t("analysis.errors")} (${errs.length})`),
      h("label", {}, t("analysis.filter"), " ", filter)),
    list);
}

/** A decision's small board; draw(notation) shows a play's arrows on it. */
function decisionBoard(d, who) {
  const boardBox = h("div", { class: "an-board" });
  let arrays = null;
  try { arrays = decodePositionId(d.position_id); } catch { arrays = null; }
  const cube = decodeMatchCube(d.match_id);
  const draw = (notation) => {
    if (!arrays) return;
    const board = boardFromPosition(arrays.mine, arrays.theirs);
    board.dice = d.dice || null;
    if (cube) board.cube = { value: cube.value, owner: cube.owner == null ? null : cube.owner === d.player ? "bottom" : "top" };
    drawBoard(boardBox, board, { small: true, arrows: d.kind === "checker" ? arrowsOfNotation(notation) : [],
      label: `${t("analysis.item", { g: d.game + 1, m: d.move, p: who })}: ${notation}` });
  };
  return { boardBox, draw };
}

function errorItem(d, players, at) {
  const who = players[d.player] || `#${d.player + 1}`;
  const { boardBox, draw } = decisionBoard(d, who);
  draw(d.best);
  const heading = d.kind === "checker" && d.dice ? t("analysis.to_play", { p: who, d: `${d.dice[0]}${d.dice[1]}` }) : t("analysis.cube_action", { p: who });
  const body = h("div", { class: "an-error-text" },
    h("h4", {}, h("span", { class: `an-badge ${d.mark}` }, t(`analysis.mark_${d.mark}`)), " ",
      t("analysis.item", { g: d.game + 1, m: d.move, p: heading })),
    h("p", { class: "an-played" }, h("strong", {}, `${t("analysis.played")}: `), d.played || "–",
      h("span", { class: "an-loss" }, ` (${t("analysis.loss", { x: fmtNum(-d.loss, 3) })})`)),
    h("p", { class: "an-best" }, h("strong", {}, `${t("analysis.better")}: `), d.best || "–"));
  if (d.category) body.append(h("p", { class: "muted" }, d.category));
  if (d.kind === "checker") {
    const text = explainReasons(d.best, d.played, d.reasons, d.explanation);
    if (text) body.append(h("p", { class: "an-explanation" }, text));
    const bPlayed = h("button", { type: "button", "aria-pressed": "false" }, t("analysis.show_played"));
    const bBetter = h("button", { type: "button", "aria-pressed": "true" }, t("analysis.show_better"));
    bPlayed.addEventListener("click", () => { draw(d.played); bPlayed.setAttribute("aria-pressed", "true"); bBetter.setAttribute("aria-pressed", "false"); });
    bBetter.addEventListener("click", () => { draw(d.best); bPlayed.setAttribute("aria-pressed", "false"); bBetter.setAttribute("aria-pressed", "true"); });
    body.append(h("div", { class: "an-toggle" }, bPlayed, bBetter));
    if (d.candidates?.length) body.append(candidateList(d, draw));
  } else if (d.cube) {
    body.append(h("p", { class: "an-explanation" }, `${d.cube.action}: ${t("analysis.cube_eq", { nd: fmtEq(d.cube.nd), dt: fmtEq(d.cube.dt), dp: fmtEq(d.cube.dp) })}`));
  }
  if (d.plan) body.append(h("p", { class: "muted an-plan" }, d.plan));
  if (currentPlayer() && d.index != null) body.append(cardButton(d, at));
  return h("li", { class: `an-error ${d.mark}`, dataset: { game: d.game, move: d.move } }, boardBox, body);
}

/** "Add to cards": the decision becomes a card of the player of this browser (POST /v1/players/{id}/cards). */
function cardButton(d, at) {
  const add = h("button", { type: "button", class: "an-card" }, t("cards.add"));
  add.addEventListener("click", async () => {
    add.disabled = true;
    try {
      await api(`/v1/players/${encodeURIComponent(currentPlayer())}/cards`, { method: "POST",
        body: { analysis: at.job, match: at.match, game: d.game, index: d.index } });
      toast(t("cards.added"));
    } catch (e) {
      toast(problemText(e), "error");
    } finally {
      add.disabled = false;
    }
  });
  return add;
}

/** Every candidate the analysis valued (up to its setting, the played one included), each shown on the board. */
function candidateList(d, draw) {
  return h("details", { class: "an-candidates" }, h("summary", {}, t("analysis.candidates", { n: d.candidates.length })),
    h("ol", {}, d.candidates.map((c) => h("li", { dataset: { play: c.notation } },
      h("button", { type: "button", class: "play-button", onclick: () => draw(c.notation) }, c.notation),
      ` ${fmtEq(c.equity)}`, c.loss ? h("span", { class: "an-loss" }, ` (${t("analysis.loss", { x: fmtNum(-c.loss, 3) })})`) : "",
      c.notation === d.played ? h("span", { class: "muted" }, ` · ${t("analysis.played")}`) : ""))));
}

