// The deep analysis of one decision (POST /v1/deep-analyses, a job over the workers): the position and dice,
// the preset (3 ply and 6,912 trials) or a lighter one, live progress, then every candidate with its search
// and rollout values, the noise band and whether it is playable. Without dice: the cube decision before the roll
// (no double, double/take, double/pass; each action's cost and whether it is playable; the cube and score from an
// XGID, else centred money). Address: /?view=deep[&position=][&dice=31][&job=].
import { api } from "../api.js";
import { remember } from "../shell.js";
import { followJob, jobEnded } from "../jobs.js";
import { t } from "../i18n.js";
import { drawBoard, boardFromPosition, arrowsOfNotation } from "../board.js";
import { h, decodePositionId, fmtEq, problemText } from "../ui.js";


const START = "4HPwATDgc/ABMA";

// The view's state: d = {controller, job, board, status, results}.
export async function mount(el, params) {
  const d = { controller: new AbortController(), job: params.job || null };
  el.classList.add("dp-view");
  const position = h("input", { id: "dp-position", class: "id-input", value: params.position || START, "aria-label": t("deep.position") });
  const dice = h("input", { id: "dp-dice", value: params.dice ?? "31", pattern: "[1-6]{2}", size: 3, "aria-label": t("deep.dice") });
  const trials = h("select", { id: "dp-trials", "aria-label": t("deep.trials") }, [6912, 1296, 144, 72].map((n) => h("option", { value: n }, String(n))));
  const ply = h("select", { id: "dp-ply", "aria-label": t("deep.ply") }, [3, 2, 1, 0].map((n) => h("option", { value: n }, String(n))));
  const form = h("form", { class: "id-form" }, position, " ", h("label", {}, t("deep.dice"), " ", dice), " ",
    h("label", {}, t("deep.trials"), " ", trials), " ", h("label", {}, t("deep.ply"), " ", ply), " ",
    h("button", { type: "submit", id: "dp-start", class: "primary" }, t("deep.start")));
  d.board = h("div", { class: "board-holder", id: "dp-board" });
  d.status = h("p", { id: "dp-status", "aria-live": "polite" });
  d.results = h("div", { class: "table-scroll", id: "dp-results" });
  form.addEventListener("submit", (e) => { e.preventDefault(); start(d, position.value.trim(), dice.value, +trials.value, +ply.value); });
  el.append(h("h1", {}, t("deep.title")), form, h("p", { class: "muted small-text" }, t("deep.no_dice")),
    h("div", { class: "pos-layout" }, h("div", {}, d.board), h("div", {}, d.status, d.results)),
    h("p", { class: "muted small-text" }, t("deep.note")));
  drawPosition(d, position.value, dice.value, null);
  if (d.job) follow(d);
  return () => d.controller.abort();
}

function drawPosition(d, positionId, dice, play) {
  try {
    const arrays = decodePositionId(positionId.split(":")[0]);
    const board = boardFromPosition(arrays.mine, arrays.theirs);
    board.dice = /^[1-6]{2}$/.test(dice) ? [+dice[0], +dice[1]] : null;
    drawBoard(d.board, board, { arrows: play ? arrowsOfNotation(play) : [], label: t("deep.title") });
  } catch { d.board.replaceChildren(); }
}

async function start(d, position, dice, trials, ply) {
  d.results.replaceChildren();
  d.status.replaceChildren(); // not the previous job's state
  try {
    const body = { position, trials, ply, priority: "interactive", ...(dice.trim() ? { dice: dice.trim() } : {}) };
    const job = await api("/v1/deep-analyses", { method: "POST", body });
    d.job = job.id;
    d.position = position;
    d.dice = dice;
    remember({ view: "deep", position, dice, job: job.id });
    drawPosition(d, position, dice, null);
    follow(d);
  } catch (e) {
    d.status.replaceChildren(h("span", { class: "error-message", role: "alert" }, problemText(e)));
  }
}

/** Follow the job d.job (its server-sent events, else its status polled) until it ends; a newer one replaces it. */
async function follow(d) {
  if (d.following) d.following.abort();
  const following = new AbortController();
  d.following = following;
  d.controller.signal.addEventListener("abort", () => following.abort(), { once: true });
  const href = `/v1/deep-analyses/${d.job}`;
  try {
    await followJob(href, (st) => showStatus(d, href, st), { signal: following.signal, interval: 700 });
  } catch (e) {
    if (!following.signal.aborted) d.status.replaceChildren(h("span", { class: "error-message" }, problemText(e)));
  }
}

function showStatus(d, href, st) {
  const cancel = h("button", { type: "button", id: "dp-cancel", onclick: () => api(href, { method: "DELETE" }) }, t("deep.cancel"));
  d.status.replaceChildren(h("progress", { max: 1, value: st.progress, id: "dp-progress" }), " ",
    h("span", { id: "dp-state", dataset: { state: st.state } }, t("deep.progress", { p: Math.round(100 * st.progress), state: st.state })),
    jobEnded(st) ? "" : cancel);
  table(d, st.report);
}

function table(d, report) {
  if (report?.cube) { cubeTable(d, report.cube); return; }
  if (!report || !report.candidates.length) return;
  const rows = report.candidates.map((c, i) => h("tr", { class: c.playable ? "playable" : "", dataset: { play: c.play } },
    h("td", {}, h("button", { type: "button", class: "play-button", onclick: () => drawPosition(d, d.position || START, d.dice || "", c.play) }, c.play)),
    h("td", { class: "num" }, fmtEq(c.ply_equity)), h("td", { class: "num" }, fmtEq(c.rollout_equity)),
    h("td", { class: "num" }, c.equity == null ? "–" : `${fmtEq(c.equity)} ± ${(2 * (c.noise || 0)).toFixed(3)}`),
    h("td", { class: "num" }, c.loss == null ? "–" : i === 0 ? "0" : `${fmtEq(-c.loss)} ± ${(2 * c.loss_noise).toFixed(3)}`),
    h("td", {}, c.playable == null ? "–" : t(c.playable ? "deep.yes" : "deep.no"))));
  d.results.replaceChildren(h("table", { class: "candidates", id: "dp-table" },
    h("thead", {}, h("tr", {}, ["deep.play", "deep.search", "deep.rollout", "deep.equity", "deep.loss", "deep.playable"].map((k) => h("th", {}, t(k))))),
    h("tbody", {}, rows)));
}

/** A cube decision's values (search, rollout, their mean ± two noise bands) and every action's cost. */
function cubeTable(d, c) {
  const band = (x) => (x == null ? "" : ` ± ${(2 * x).toFixed(3)}`);
  const row = (key, b, noise) => h("tr", {}, h("th", { scope: "row" }, t(key)), h("td", { class: "num" }, fmtEq(b?.ply_equity)),
    h("td", { class: "num" }, fmtEq(b?.rollout_equity)), h("td", { class: "num" }, b?.equity == null ? "–" : `${fmtEq(b.equity)}${band(noise)}`));
  const values = h("table", { class: "candidates", id: "dp-cube" },
    h("thead", {}, h("tr", {}, ["deep.branch", "deep.search", "deep.rollout", "deep.equity"].map((k) => h("th", {}, t(k))))),
    h("tbody", {}, row("deep.nd", c.no_double, c.double_noise), row("deep.dt", c.double_take, c.take_noise),
      h("tr", {}, h("th", { scope: "row" }, t("deep.dp")), h("td", {}), h("td", {}), h("td", { class: "num" }, fmtEq(c.double_pass)))));
  const choices = h("table", { class: "candidates", id: "dp-choices" },
    h("thead", {}, h("tr", {}, ["deep.action", "deep.cost", "deep.playable"].map((k) => h("th", {}, t(k))))),
    h("tbody", {}, c.choices.map((x) => h("tr", { class: x.playable ? "playable" : "", dataset: { action: x.action } },
      h("td", {}, t(`deep.${x.action}`)), h("td", { class: "num" }, x.cost ? fmtEq(-x.cost) : "0"),
      h("td", {}, t(x.playable ? "deep.yes" : "deep.no"))))));
  d.results.replaceChildren(...(c.action ? [h("p", { class: "status-line", id: "dp-decision" }, t("deep.decision", { a: c.action }))] : []),
    values, choices);
}
