// The deep analysis of one decision (POST /v1/deep-analyses, a job over the workers): the position and dice,
// the preset (3 ply and 6,912 trials) or a lighter one, live progress, then every candidate with its search
// and rollout values, the noise band and whether it is playable. Without dice: the cube decision before the roll
// (no double, double/take, double/pass; each action's cost and whether it is playable; the cube and score from an
// XGID, else centred money). Address: /?view=deep[&position=][&dice=31][&job=].
import { api } from "../api.js";
import { remember } from "../shell.js";
import { t, addMessages } from "../i18n.js";
import { drawBoard, boardFromPosition, arrowsOfNotation } from "../board.js";
import { h, decodePositionId, fmtEq, problemText } from "../ui.js";

addMessages({
  en: { dp_title: "Deep analysis", dp_position: "Position ID or XGID", dp_dice: "Dice", dp_trials: "Trials", dp_ply: "Ply",
        dp_start: "Analyse", dp_cancel: "Cancel", dp_progress: "{p} % · {state}", dp_play: "Play", dp_search: "Search",
        dp_rollout: "Rollout", dp_equity: "Equity", dp_loss: "Loss", dp_playable: "Playable", dp_yes: "yes", dp_no: "no",
        dp_note: "Equity = (search + rollout) / 2; a play whose loss lies within two standard errors is playable.",
        dp_no_dice: "Leave the dice empty for the cube decision before the roll.", dp_branch: "Cube action", dp_action: "Action",
        dp_cost: "Cost", dp_nd: "No double", dp_dt: "Double, take", dp_dp: "Double, pass", dp_decision: "Decision: {a}",
        "dp_no double": "no double", dp_double: "double", dp_take: "take", dp_pass: "pass", dp_beaver: "beaver" },
  de: { dp_title: "Tiefenanalyse", dp_position: "Positions-ID oder XGID", dp_dice: "Würfel", dp_trials: "Durchläufe", dp_ply: "Tiefe",
        dp_start: "Analysieren", dp_cancel: "Abbrechen", dp_progress: "{p} % · {state}", dp_play: "Zug", dp_search: "Suche",
        dp_rollout: "Simulation", dp_equity: "Equity", dp_loss: "Verlust", dp_playable: "Spielbar", dp_yes: "ja", dp_no: "nein",
        dp_note: "Equity = (Suche + Simulation) / 2; ein Zug, dessen Verlust innerhalb von zwei Standardfehlern liegt, ist spielbar.",
        dp_no_dice: "Ohne Würfel: die Würfelentscheidung vor dem Wurf.", dp_branch: "Würfelaktion", dp_action: "Aktion",
        dp_cost: "Kosten", dp_nd: "Kein Doppel", dp_dt: "Doppel, annehmen", dp_dp: "Doppel, abgeben", dp_decision: "Entscheidung: {a}",
        "dp_no double": "kein Doppel", dp_double: "doppeln", dp_take: "annehmen", dp_pass: "abgeben", dp_beaver: "Beaver" },
  tr: { dp_title: "Derin analiz", dp_position: "Pozisyon kimliği veya XGID", dp_dice: "Zarlar", dp_trials: "Deneme", dp_ply: "Derinlik",
        dp_start: "Analiz et", dp_cancel: "İptal", dp_progress: "%{p} · {state}", dp_play: "Hamle", dp_search: "Arama",
        dp_rollout: "Rollout", dp_equity: "Equity", dp_loss: "Kayıp", dp_playable: "Oynanabilir", dp_yes: "evet", dp_no: "hayır",
        dp_note: "Equity = (arama + rollout) / 2; kaybı iki standart hata içinde kalan hamle oynanabilir.",
        dp_no_dice: "Zar boş bırakılırsa: zar atmadan önceki küp kararı.", dp_branch: "Küp hamlesi", dp_action: "Hamle",
        dp_cost: "Maliyet", dp_nd: "Katlama yok", dp_dt: "Katla, kabul", dp_dp: "Katla, ret", dp_decision: "Karar: {a}",
        "dp_no double": "katlama yok", dp_double: "katla", dp_take: "kabul", dp_pass: "ret", dp_beaver: "beaver" },
});

const START = "4HPwATDgc/ABMA";

// The view's state: d = {controller, job, board, status, results}.
export async function mount(el, params) {
  const d = { controller: new AbortController(), job: params.job || null };
  el.classList.add("dp-view");
  const position = h("input", { id: "dp-position", class: "id-input", value: params.position || START, "aria-label": t("dp_position") });
  const dice = h("input", { id: "dp-dice", value: params.dice ?? "31", pattern: "[1-6]{2}", size: 3, "aria-label": t("dp_dice") });
  const trials = h("select", { id: "dp-trials", "aria-label": t("dp_trials") }, [6912, 1296, 144, 72].map((n) => h("option", { value: n }, String(n))));
  const ply = h("select", { id: "dp-ply", "aria-label": t("dp_ply") }, [3, 2, 1, 0].map((n) => h("option", { value: n }, String(n))));
  const form = h("form", { class: "id-form" }, position, " ", h("label", {}, t("dp_dice"), " ", dice), " ",
    h("label", {}, t("dp_trials"), " ", trials), " ", h("label", {}, t("dp_ply"), " ", ply), " ",
    h("button", { type: "submit", id: "dp-start", class: "primary" }, t("dp_start")));
  d.board = h("div", { class: "board-holder", id: "dp-board" });
  d.status = h("p", { id: "dp-status", "aria-live": "polite" });
  d.results = h("div", { class: "table-scroll", id: "dp-results" });
  form.addEventListener("submit", (e) => { e.preventDefault(); start(d, position.value.trim(), dice.value, +trials.value, +ply.value); });
  el.append(h("h1", {}, t("dp_title")), form, h("p", { class: "muted small-text" }, t("dp_no_dice")),
    h("div", { class: "pos-layout" }, h("div", {}, d.board), h("div", {}, d.status, d.results)),
    h("p", { class: "muted small-text" }, t("dp_note")));
  drawPosition(d, position.value, dice.value, null);
  if (d.job) poll(d);
  return () => d.controller.abort();
}

function drawPosition(d, positionId, dice, play) {
  try {
    const arrays = decodePositionId(positionId.split(":")[0]);
    const board = boardFromPosition(arrays.mine, arrays.theirs);
    board.dice = /^[1-6]{2}$/.test(dice) ? [+dice[0], +dice[1]] : null;
    drawBoard(d.board, board, { arrows: play ? arrowsOfNotation(play) : [], label: t("dp_title") });
  } catch { d.board.replaceChildren(); }
}

async function start(d, position, dice, trials, ply) {
  d.results.replaceChildren();
  try {
    const body = { position, trials, ply, priority: "interactive", ...(dice.trim() ? { dice: dice.trim() } : {}) };
    const job = await api("/v1/deep-analyses", { method: "POST", body });
    d.job = job.id;
    d.position = position;
    d.dice = dice;
    remember({ view: "deep", position, dice, job: job.id });
    drawPosition(d, position, dice, null);
    poll(d);
  } catch (e) {
    d.status.replaceChildren(h("span", { class: "error-message", role: "alert" }, problemText(e)));
  }
}

async function poll(d) {
  const href = `/v1/deep-analyses/${d.job}`;
  while (!d.controller.signal.aborted) {
    let st;
    try {
      st = await api(href, { signal: d.controller.signal });
    } catch (e) {
      if (e.name !== "AbortError") d.status.replaceChildren(h("span", { class: "error-message" }, problemText(e)));
      return;
    }
    const cancel = h("button", { type: "button", id: "dp-cancel", onclick: () => api(href, { method: "DELETE" }) }, t("dp_cancel"));
    d.status.replaceChildren(h("progress", { max: 1, value: st.progress, id: "dp-progress" }), " ",
      h("span", { id: "dp-state", dataset: { state: st.state } }, t("dp_progress", { p: Math.round(100 * st.progress), state: st.state })),
      ["queued", "running"].includes(st.state) ? cancel : "");
    table(d, st.report);
    if (!["queued", "running"].includes(st.state)) return;
    await new Promise((r) => setTimeout(r, 700));
  }
}

function table(d, report) {
  if (report?.cube) { cubeTable(d, report.cube); return; }
  if (!report || !report.candidates.length) return;
  const rows = report.candidates.map((c, i) => h("tr", { class: c.playable ? "playable" : "", dataset: { play: c.play } },
    h("td", {}, h("button", { type: "button", class: "play-button", onclick: () => drawPosition(d, d.position || START, d.dice || "", c.play) }, c.play)),
    h("td", { class: "num" }, fmtEq(c.ply_equity)), h("td", { class: "num" }, fmtEq(c.rollout_equity)),
    h("td", { class: "num" }, c.equity == null ? "–" : `${fmtEq(c.equity)} ± ${(2 * (c.noise || 0)).toFixed(3)}`),
    h("td", { class: "num" }, c.loss == null ? "–" : i === 0 ? "0" : `${fmtEq(-c.loss)} ± ${(2 * c.loss_noise).toFixed(3)}`),
    h("td", {}, c.playable == null ? "–" : t(c.playable ? "dp_yes" : "dp_no"))));
  d.results.replaceChildren(h("table", { class: "candidates", id: "dp-table" },
    h("thead", {}, h("tr", {}, ["dp_play", "dp_search", "dp_rollout", "dp_equity", "dp_loss", "dp_playable"].map((k) => h("th", {}, t(k))))),
    h("tbody", {}, rows)));
}

/** A cube decision's values (search, rollout, their mean ± two noise bands) and every action's cost. */
function cubeTable(d, c) {
  const band = (x) => (x == null ? "" : ` ± ${(2 * x).toFixed(3)}`);
  const row = (key, b, noise) => h("tr", {}, h("th", { scope: "row" }, t(key)), h("td", { class: "num" }, fmtEq(b?.ply_equity)),
    h("td", { class: "num" }, fmtEq(b?.rollout_equity)), h("td", { class: "num" }, b?.equity == null ? "–" : `${fmtEq(b.equity)}${band(noise)}`));
  const values = h("table", { class: "candidates", id: "dp-cube" },
    h("thead", {}, h("tr", {}, ["dp_branch", "dp_search", "dp_rollout", "dp_equity"].map((k) => h("th", {}, t(k))))),
    h("tbody", {}, row("dp_nd", c.no_double, c.double_noise), row("dp_dt", c.double_take, c.take_noise),
      h("tr", {}, h("th", { scope: "row" }, t("dp_dp")), h("td", {}), h("td", {}), h("td", { class: "num" }, fmtEq(c.double_pass)))));
  const choices = h("table", { class: "candidates", id: "dp-choices" },
    h("thead", {}, h("tr", {}, ["dp_action", "dp_cost", "dp_playable"].map((k) => h("th", {}, t(k))))),
    h("tbody", {}, c.choices.map((x) => h("tr", { class: x.playable ? "playable" : "", dataset: { action: x.action } },
      h("td", {}, t(`dp_${x.action}`)), h("td", { class: "num" }, x.cost ? fmtEq(-x.cost) : "0"),
      h("td", {}, t(x.playable ? "dp_yes" : "dp_no"))))));
  d.results.replaceChildren(...(c.action ? [h("p", { class: "status-line", id: "dp-decision" }, t("dp_decision", { a: c.action }))] : []),
    values, choices);
}
