// The position view: paste an ID or set a position up, then the hint (candidates with arrows), the cube
// decision, resignations, and rollouts of the top candidates as jobs with live progress.
// Address: /?position=<Position ID | PositionID:MatchID | XGID | OGID>&dice=31 (and rules, cube, match settings).
import { api } from "../api.js";
import { followJob } from "../jobs.js";
import { remember, toast } from "../shell.js";
import { t } from "../i18n.js";
import { drawBoard, boardFromPosition, arrowsOfNotation } from "../board.js";
import { h, positionId, fmtEqAscii as fmt, fmtPctBare as pct, problemText } from "../ui.js";
import { saveToLibrary } from "../players.js";


const START = [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0];

const sum = (a) => a.reduce((x, y) => x + y, 0);
/** An error in words: the API's detail, or "Error: ..." of any other. */
const problem = (e) => problemText(e, { fields: false, label: true });

function parseDice(text) {
  const m = /^([1-6])[-,]?([1-6])$/.exec(text || "");
  return m ? [+m[1], +m[2]] : null;
}

/** The state of the address: the board (the start), dice, rules, cube and match, the search depth. */
function initialState(params) {
  const s = {
    mine: [...START], theirs: [...START],
    dice: parseDice(params.dice),
    rules: { variant: params.rules === "tavla" ? "tavla" : "international", hit_and_stop: params.hs === "1", must_bear_off: params.mbo === "1" },
    cube: { value: +params.cube || 1, owner: ["player", "opponent"].includes(params.owner) ? params.owner : "centre",
            match_length: +params.ml || 0, score: 0, opponent_score: 0, crawford: params.cr === "1",
            jacoby: params.jacoby === "1", beaver: params.beaver === "1" },
    ply: params.ply != null && params.ply !== "" ? +params.ply : 0,
    side: "bottom", mode: "add",
    candidates: [], selected: 0, legal: 0,
  };
  if (params.score && /^\d+-\d+$/.test(params.score)) [s.cube.score, s.cube.opponent_score] = params.score.split("-").map(Number);
  return s;
}

// The view: v = {s (the state), generation (of the latest analysis), rollout ({controller, id, ...} of the
// running one), timer, f (the settings' inputs), ro (the rollout panel's elements), and the boxes}.
export async function mount(el, params) {
  const v = { s: initialState(params), generation: 0, rollout: null, timer: null };
  const settings = settingsPanel(v);
  v.hintBox = h("section", { class: "hint panel", "aria-live": "polite", id: "pos-hint" });
  v.cubeBox = h("section", { class: "cube-decision panel", id: "pos-cube-decision" });
  el.append(h("section", { class: "position-view" },
    h("h2", { class: "visually-hidden" }, t("position.title")),
    idForm(v),
    v.message,
    h("div", { class: "pos-layout" },
      h("div", { class: "board-col" }, ...boardPanel(v), editorPanel(v)),
      h("div", { class: "side-col" }, settings, v.hintBox, v.cubeBox, resignPanel(v), rolloutPanel(v)))));

  syncForm(v);
  redraw(v);
  if (params.position) {
    v.idInput.value = params.position;
    await loadId(v, params.position, { dice: v.s.dice, keepSettings: !!(params.ml || params.cube || params.owner) });
  } else {
    changed(v);
  }

  return () => {
    clearTimeout(v.timer);
    v.generation++;
    if (v.rollout) v.rollout.controller.abort();
    v.rollout = null;
  };
}

// ---- the ID form and the board
function idForm(v) {
  v.idInput = h("input", { id: "pos-id", name: "position", autocomplete: "off", spellcheck: "false", class: "id-input", placeholder: "4HPwATDgc/ABMA" });
  v.message = h("p", { class: "error-message", role: "alert", id: "pos-error" });
  return h("form", { class: "id-form", onsubmit: (e) => { e.preventDefault(); loadId(v, v.idInput.value.trim()); } },
    h("label", { for: "pos-id" }, t("position.id_label")), v.idInput, h("button", { type: "submit", id: "pos-show" }, t("position.show")));
}

function boardPanel(v) {
  v.boardHolder = h("div", { class: "board-holder" });
  v.pipsLine = h("p", { class: "pips-line muted" });
  v.idsLine = h("div", { class: "ids-line muted", id: "pos-ids" });
  const save = h("button", { type: "button", id: "pos-save", onclick: () => savePosition(v, save) }, t("library.save_position"));
  return [v.boardHolder, v.pipsLine, v.idsLine, h("div", { class: "buttons" }, save)];
}

/** The board saved in the library (POST /v1/library/positions), named by its ID, with the dice and the
 *  loaded match state; for the player of this browser. Renamed and tagged in the library view. */
async function savePosition(v, button) {
  const s = v.s;
  const info = v.loaded && v.loaded.key === stateKey(s) ? v.loaded.info : null;
  const id = info?.gnubg_id || positionId(s.mine, s.theirs);
  const body = { position: info?.gnubg_id || { mine: s.mine, theirs: s.theirs }, name: id, rules: s.rules };
  if (s.dice) body.dice = s.dice;
  await saveToLibrary(body, button, problem);
}

/** What an ID's state was when it was loaded: its other IDs are shown while the state is still this one. */
const stateKey = (s) => JSON.stringify([s.mine, s.theirs, s.dice, s.cube]);

/** The IDs of the board: its Position ID, and while the loaded ID's state is unchanged, the API's Match ID,
 *  XGID and OGID of it (GET /v1/positions/{id}); each with a copy button. */
function showIds(v) {
  const s = v.s;
  const info = v.loaded && v.loaded.key === stateKey(s) ? v.loaded.info : null;
  const rows = [["position_id", positionId(s.mine, s.theirs)]];
  if (info?.gnubg_id) rows.push(["match_id", info.gnubg_id.split(":")[1]]);
  if (info) rows.push(["xgid", info.xgid], ["ogid", info.ogid]);
  v.idsLine.replaceChildren(...rows.map(([kind, value]) => {
    const label = t(`position.ids_${kind}`);
    const copy = h("button", { type: "button", class: "copy-id", "aria-label": t("position.copy_id", { id: label }),
      onclick: () => copyText(value) }, t("position.copy"));
    return h("p", { class: "id-row", dataset: { id: kind } }, `${label}: `, h("span", { class: "id-value" }, value), " ", copy);
  }));
}

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    toast(t("position.copied", { id: text }));
  } catch {
    toast(t("position.copy_failed"), "error");
  }
}

function editorPanel(v) {
  const s = v.s;
  const sideRadios = h("div", { class: "radios", role: "radiogroup", "aria-label": t("position.side") }, h("span", {}, t("position.side"), ": "),
    radio("pos-side", "bottom", t("position.side_bottom"), true, () => (s.side = "bottom")),
    radio("pos-side", "top", t("position.side_top"), false, () => (s.side = "top")));
  const modeRadios = h("div", { class: "radios", role: "radiogroup", "aria-label": t("position.mode") }, h("span", {}, t("position.mode"), ": "),
    radio("pos-mode", "add", t("position.mode_add"), true, () => (s.mode = "add")),
    radio("pos-mode", "remove", t("position.mode_remove"), false, () => (s.mode = "remove")));
  return h("details", { class: "editor panel" }, h("summary", {}, t("position.editor")),
    h("p", { class: "muted small-text" }, t("position.editor_help")), sideRadios, modeRadios,
    h("div", { class: "buttons" },
      h("button", { type: "button", onclick: () => setBoard(v, [...START], [...START]) }, t("position.start")),
      h("button", { type: "button", onclick: () => setBoard(v, new Array(25).fill(0), new Array(25).fill(0)) }, t("position.clear")),
      h("button", { type: "button", onclick: () => setBoard(v, [...s.theirs], [...s.mine]) }, t("position.swap"))));
}

function radio(name, value, label, checked, fn) {
  return h("label", {}, h("input", { type: "radio", name, value, checked, onchange: fn }), " ", label);
}

function currentBoard(s) {
  const b = boardFromPosition(s.mine, s.theirs);
  b.dice = s.dice;
  if (s.rules.variant !== "tavla") b.cube = { value: s.cube.value, owner: s.cube.owner === "player" ? "bottom" : s.cube.owner === "opponent" ? "top" : null };
  return b;
}

function redraw(v) {
  const s = v.s;
  const b = currentBoard(s);
  const c = s.candidates[s.selected];
  drawBoard(v.boardHolder, b, {
    arrows: c ? arrowsOfNotation(c.notation) : [],
    onPoint: (point, event) => edit(v, point, event),
    onDrag: (from, to) => move(v, from, to),
    label: `${t("board.label")}: ${positionId(s.mine, s.theirs)}`,
  });
  v.pipsLine.textContent = t("position.pips", { bottom: b.pips[0], top: b.pips[1] });
  showIds(v);
}

// click a point: add a checker of the chosen side there, or take one away
function edit(v, point, event) {
  const s = v.s;
  if (point === 0) return;
  const remove = s.mode === "remove" || event?.shiftKey || event?.type === "contextmenu";
  const own = s.side === "bottom" ? s.mine : s.theirs;
  const other = s.side === "bottom" ? s.theirs : s.mine;
  // the point in the chosen side's own numbering (index; 24 = bar)
  const idx = point === 25 ? 24 : s.side === "bottom" ? point - 1 : 24 - point;
  const otherIdx = point === 25 ? null : s.side === "bottom" ? 24 - point : point - 1;
  if (remove) {
    if (!own[idx]) return;
    own[idx]--;
  } else {
    if (otherIdx != null && other[otherIdx]) return toast(t("position.wrong_side"), "error");
    if (sum(own) >= 15) return toast(t("position.full"), "error");
    own[idx]++;
  }
  s.candidates = [];
  redraw(v);
  changed(v);
  // keep the keyboard focus on the same point after the redraw
  v.boardHolder.querySelector(`.hit[data-point="${point}"]`)?.focus();
}

// drag a checker: from the side that has one there, to a point, the bar, or the tray (off the board: removed)
function move(v, from, to) {
  const s = v.s;
  if (from === 0) return;
  const at = (side, p) => (p === 25 ? 24 : side === "bottom" ? p - 1 : 24 - p);
  const side = s.mine[at("bottom", from)] ? "bottom" : s.theirs[at("top", from)] ? "top" : null;
  if (!side) return;
  const own = side === "bottom" ? s.mine : s.theirs;
  const other = side === "bottom" ? s.theirs : s.mine;
  if (to !== 0 && to !== 25 && other[at(side === "bottom" ? "top" : "bottom", to)]) {
    return toast(t("position.wrong_side"), "error");
  }
  own[at(side, from)]--;
  if (to !== 0) own[at(side, to)]++;
  s.candidates = [];
  redraw(v);
  changed(v);
}

function setBoard(v, mine, theirs) {
  Object.assign(v.s, { mine, theirs, candidates: [] });
  redraw(v); changed(v);
}

// ---- the settings: dice, rules, cube and match, search depth
function settingsPanel(v) {
  const f = {};
  f.die1 = diceSelect(1); f.die2 = diceSelect(2);
  f.variant = h("select", { id: "pos-variant" },
    h("option", { value: "international", text: t("position.international") }), h("option", { value: "tavla", text: t("position.tavla") }));
  f.hs = h("input", { type: "checkbox", id: "pos-hs" });
  f.mbo = h("input", { type: "checkbox", id: "pos-mbo" });
  f.tavlaOpts = h("span", { class: "tavla-options" },
    h("label", {}, f.hs, " ", t("position.hit_and_stop")), " ", h("label", {}, f.mbo, " ", t("position.must_bear_off")));
  f.cubeFields = cubeFields(f);
  f.ply = h("select", { id: "pos-ply" }, [0, 1, 2].map((x) => h("option", { value: x, text: x })));
  v.f = f;
  for (const k of ["die1", "die2", "variant", "hs", "mbo", "cubeValue", "cubeOwner", "matchLen", "score1", "score2", "crawford", "jacoby", "beaver", "ply"])
    f[k].addEventListener("change", () => { readForm(v); visibility(v); changed(v); });
  return h("fieldset", { class: "pos-settings panel" }, h("legend", {}, t("position.dice"), " · ", t("position.rules"), " · ", t("position.cube")),
    h("div", { class: "dice-row" }, h("span", {}, t("position.dice"), " "), f.die1, " ", f.die2),
    h("div", {}, h("label", {}, t("position.rules"), " ", f.variant), " ", f.tavlaOpts),
    f.cubeFields,
    h("div", {}, h("label", {}, t("position.ply"), " ", f.ply)));
}

/** The cube's and the match's inputs (into f); their box. */
function cubeFields(f) {
  f.cubeValue = h("select", { id: "pos-cube" }, [1, 2, 4, 8, 16, 32, 64].map((x) => h("option", { value: x, text: x })));
  f.cubeOwner = h("select", { id: "pos-owner" }, ["centre", "player", "opponent"].map((x) => h("option", { value: x, text: t(`position.${x}`) })));
  f.matchLen = h("input", { type: "number", id: "pos-ml", min: 0, max: 25, class: "num-input" });
  f.score1 = h("input", { type: "number", id: "pos-score1", min: 0, max: 24, class: "num-input", "aria-label": t("position.player") });
  f.score2 = h("input", { type: "number", id: "pos-score2", min: 0, max: 24, class: "num-input", "aria-label": t("position.opponent") });
  f.crawford = h("input", { type: "checkbox", id: "pos-cr" });
  f.jacoby = h("input", { type: "checkbox", id: "pos-jacoby" });
  f.beaver = h("input", { type: "checkbox", id: "pos-beaver" });
  return h("div", { class: "cube-fields" },
    h("label", {}, t("position.cube"), " ", f.cubeValue), " ", h("label", {}, t("position.owner"), " ", f.cubeOwner),
    h("div", {}, h("label", {}, t("position.match"), " ", f.matchLen)),
    h("div", { class: "match-only" }, h("span", {}, t("position.score"), " "), f.score1, " – ", f.score2, " ", h("label", {}, f.crawford, " ", t("position.crawford"))),
    h("div", { class: "money-only" }, h("label", {}, f.jacoby, " ", t("position.jacoby")), " ", h("label", {}, f.beaver, " ", t("position.beaver"))));
}

function diceSelect(n) {
  return h("select", { id: `pos-die${n}`, "aria-label": t("position.die", { n }) },
    h("option", { value: "", text: t("position.no_dice") }), [1, 2, 3, 4, 5, 6].map((x) => h("option", { value: x, text: x })));
}

// form <-> state
function syncForm(v) {
  const { s, f } = v;
  f.die1.value = s.dice ? s.dice[0] : ""; f.die2.value = s.dice ? s.dice[1] : "";
  f.variant.value = s.rules.variant; f.hs.checked = s.rules.hit_and_stop; f.mbo.checked = s.rules.must_bear_off;
  f.cubeValue.value = s.cube.value; f.cubeOwner.value = s.cube.owner; f.matchLen.value = s.cube.match_length;
  f.score1.value = s.cube.score; f.score2.value = s.cube.opponent_score; f.crawford.checked = s.cube.crawford;
  f.jacoby.checked = s.cube.jacoby; f.beaver.checked = s.cube.beaver; f.ply.value = s.ply;
  visibility(v);
}

function visibility(v) {
  const { s, f } = v;
  const tavla = s.rules.variant === "tavla";
  f.tavlaOpts.hidden = !tavla; f.cubeFields.hidden = tavla;
  f.cubeFields.querySelector(".match-only").hidden = !s.cube.match_length;
  f.cubeFields.querySelector(".money-only").hidden = !!s.cube.match_length;
  v.resignBox.hidden = tavla || !!s.dice;
  v.cubeBox.hidden = !!s.dice && !tavla;
  v.ro.box.querySelector(".dice-only").hidden = !s.dice;
  v.ro.box.querySelector(".cube-only").hidden = !!s.dice || tavla;
}

function readForm(v) {
  const { s, f } = v;
  const d1 = +f.die1.value, d2 = +f.die2.value;
  s.dice = d1 && d2 ? [d1, d2] : null;
  const tavla = f.variant.value === "tavla";
  s.rules = { variant: f.variant.value, hit_and_stop: tavla && f.hs.checked, must_bear_off: tavla && f.mbo.checked };
  s.cube = { value: +f.cubeValue.value, owner: f.cubeOwner.value, match_length: Math.max(0, Math.min(25, +f.matchLen.value || 0)),
             score: +f.score1.value || 0, opponent_score: +f.score2.value || 0, crawford: f.crawford.checked,
             jacoby: f.jacoby.checked, beaver: f.beaver.checked };
  s.ply = +f.ply.value;
}

// ---- address and analysis
function address(s) {
  const q = { position: positionId(s.mine, s.theirs) };
  if (s.dice) q.dice = `${s.dice[0]}${s.dice[1]}`;
  if (s.rules.variant === "tavla") { q.rules = "tavla"; if (s.rules.hit_and_stop) q.hs = "1"; if (s.rules.must_bear_off) q.mbo = "1"; }
  else {
    if (s.cube.value > 1) q.cube = s.cube.value;
    if (s.cube.owner !== "centre") q.owner = s.cube.owner;
    if (s.cube.match_length) { q.ml = s.cube.match_length; q.score = `${s.cube.score}-${s.cube.opponent_score}`; if (s.cube.crawford) q.cr = "1"; }
    else { if (s.cube.jacoby) q.jacoby = "1"; if (s.cube.beaver) q.beaver = "1"; }
  }
  if (s.ply) q.ply = s.ply;
  remember(q);
}

function changed(v) {
  address(v.s);
  clearTimeout(v.timer);
  v.timer = setTimeout(() => analyse(v), 200);
}

function body(s) {
  return { position: { mine: s.mine, theirs: s.theirs }, rules: s.rules };
}

function cubeBody(s) {
  return { ...s.cube, ...(s.cube.match_length ? { jacoby: false, beaver: false } : { score: 0, opponent_score: 0, crawford: false }) };
}

function cubeful(s) {
  return s.rules.variant !== "tavla" && (s.cube.match_length > 0 || s.cube.value > 1 || s.cube.owner !== "centre");
}

// the hint with dice, the cube decision without; a newer analysis (generation) wins
async function analyse(v) {
  const s = v.s;
  const gen = ++v.generation;
  v.message.textContent = "";
  if (sum(s.mine) === 0 || sum(s.theirs) === 0) {
    v.hintBox.replaceChildren(); v.cubeBox.replaceChildren(); return;
  }
  if (s.dice) await analyseHint(v, gen);
  else await analyseCube(v, gen);
}

async function analyseHint(v, gen) {
  const s = v.s;
  v.cubeBox.replaceChildren();
  v.hintBox.hidden = false;
  v.hintBox.replaceChildren(h("h3", {}, t("position.hint")), h("p", { class: "muted" }, t("app.loading")));
  try {
    const req = { ...body(s), dice: s.dice, ply: s.ply, limit: 32 };
    if (cubeful(s)) req.cube = cubeBody(s);
    const r = await api("/v1/hint", { method: "POST", body: req });
    if (gen !== v.generation) return;
    s.candidates = r.candidates; s.legal = r.legal_plays; s.selected = 0;
    renderHint(v); redraw(v);
  } catch (e) {
    if (gen !== v.generation) return;
    s.candidates = []; redraw(v);
    v.hintBox.replaceChildren(h("h3", {}, t("position.hint")), h("p", { class: "error-message", role: "alert" }, problem(e)));
  }
}

async function analyseCube(v, gen) {
  const s = v.s;
  v.hintBox.hidden = true;
  s.candidates = []; redraw(v);
  if (s.rules.variant === "tavla") {
    v.cubeBox.replaceChildren(h("p", { class: "muted" }, t("position.cube_tavla")));
    return;
  }
  v.cubeBox.replaceChildren(h("h3", {}, t("position.cube_title")), h("p", { class: "muted" }, t("app.loading")));
  try {
    const r = await api("/v1/cube-decision", { method: "POST", body: { ...body(s), cube: cubeBody(s), ply: Math.min(s.ply, 2) } });
    if (gen !== v.generation) return;
    renderCube(v, r);
  } catch (e) {
    if (gen !== v.generation) return;
    v.cubeBox.replaceChildren(h("h3", {}, t("position.cube_title")), h("p", { class: "error-message", role: "alert" }, problem(e)));
  }
}

// ---- the hint: the candidates, the chosen one's arrows on the board
function renderHint(v) {
  const s = v.s;
  if (!s.candidates.length) {
    v.hintBox.replaceChildren(h("h3", {}, t("position.hint")), h("p", {}, t("position.no_legal")));
    return;
  }
  const rows = s.candidates.map((c, i) => h("tr", { class: i === s.selected ? "selected" : null, "data-index": i },
    h("td", {}, i + 1),
    h("td", {}, h("button", { type: "button", class: "play-button", "aria-pressed": i === s.selected ? "true" : "false",
      "aria-label": t("position.select", { play: c.notation }), onclick: () => select(v, i) }, c.notation || "—")),
    h("td", { class: "num" }, fmt(c.equity)), h("td", { class: "num" }, i ? fmt(-c.loss) : ""),
    h("td", { class: "num" }, pct(c.probabilities.win)), h("td", { class: "num" }, pct(c.probabilities.win_gammon)),
    h("td", { class: "num" }, pct(c.probabilities.win_backgammon)), h("td", { class: "num" }, pct(c.probabilities.lose_gammon)),
    h("td", { class: "num" }, pct(c.probabilities.lose_backgammon))));
  v.hintBox.replaceChildren(h("h3", {}, t("position.hint")),
    h("p", { class: "muted", id: "pos-count" }, t("position.candidates", { n: s.candidates.length, total: s.legal }), ` · ${s.candidates[0].ply}-ply`),
    h("div", { class: "table-scroll" }, h("table", { class: "candidates" },
      h("thead", {}, h("tr", {}, ["#", t("position.play"), t("position.equity"), t("position.loss"), t("position.win"), t("position.wg"), t("position.wbg"), t("position.lg"), t("position.lbg")].map((x) => h("th", {}, x)))),
      h("tbody", {}, rows))));
}

function select(v, i) {
  v.s.selected = i;
  for (const tr of v.hintBox.querySelectorAll("tbody tr")) {
    const on = +tr.dataset.index === i;
    tr.classList.toggle("selected", on);
    tr.querySelector("button").setAttribute("aria-pressed", on ? "true" : "false");
  }
  redraw(v);
}

// ---- the cube decision
function renderCube(v, r) {
  const e = r.equities;
  const row = (label, x) => h("tr", {}, h("th", {}, label), h("td", { class: "num" }, x == null ? "—" : fmt(x)));
  const p = r.probabilities;
  v.cubeBox.replaceChildren(h("h3", {}, t("position.cube_title")),
    h("p", { class: "cube-action", id: "cube-action" }, h("strong", {}, r.action)),
    h("table", { class: "cube-table" }, h("tbody", {},
      row(t("position.nd"), e.no_double), row(t("position.dt"), e.double_take), row(t("position.dp"), e.double_pass))),
    h("p", { class: "muted" }, `${t("position.win")} ${pct(p.win)}% · ${t("position.wg")} ${pct(p.win_gammon)}% · ${t("position.lg")} ${pct(p.lose_gammon)}%`,
      r.take_point != null ? ` · ${t("position.take_point")} ${pct(r.take_point)}%` : "", ` · ${r.ply}-ply`),
    h("p", { class: "muted small-text" }, Object.entries(r.costs).map(([k, x]) => `${k}: ${fmt(-x)}`).join(" · ")),
    ...(r.notes.length ? [h("ul", {}, r.notes.map((n) => h("li", {}, n)))] : []));
}

// ---- the resignation
function resignPanel(v) {
  const level = h("select", { id: "pos-resign-level" }, ["single", "gammon", "backgammon"].map((x) => h("option", { value: x, text: t(`position.${x}`) })));
  const resigner = h("select", { id: "pos-resigner" }, h("option", { value: "opponent", text: t("position.opponent") }), h("option", { value: "player", text: t("position.player") }));
  const out = h("div", { class: "resign-out", "aria-live": "polite" });
  v.resignBox = h("section", { class: "resignation panel", id: "pos-resignation" }, h("h3", {}, t("position.resign_title")),
    h("div", {}, h("label", {}, t("position.resign_level"), " ", level), " ", h("label", {}, t("position.resigner"), " ", resigner), " ",
      h("button", { type: "button", id: "pos-judge", onclick: () => judgeResignation(v, level.value, resigner.value, out) }, t("position.judge"))), out);
  return v.resignBox;
}

async function judgeResignation(v, level, resigner, out) {
  const s = v.s;
  out.replaceChildren(h("p", { class: "muted" }, t("app.loading")));
  try {
    const r = await api("/v1/resignation", { method: "POST", body: { ...body(s), cube: cubeBody(s), resignation: level, resigner, ply: Math.min(s.ply, 2) } });
    const parts = [];
    if (r.decision) {
      const d = r.decision;
      const who = d.resigner === "opponent" ? t("position.the_player") : t("position.the_opponent");
      parts.push(h("p", { id: "resign-answer" }, t(d.accept ? "position.accept" : "position.reject", { who, value: fmt(d.value), play_on: fmt(d.play_on), cost: d.cost.toFixed(3) })));
    }
    parts.push(h("p", { class: "muted" }, r.should_resign ? t("position.should_resign", { level: t(`position.${r.should_resign}`) }) : t("position.should_not_resign")));
    out.replaceChildren(...parts);
  } catch (e) {
    out.replaceChildren(h("p", { class: "error-message", role: "alert" }, problem(e)));
  }
}

// ---- rollouts: a job with live progress (server-sent events), each candidate's confidence interval
function rolloutPanel(v) {
  const ro = {
    trials: h("input", { type: "number", id: "ro-trials", min: 1, max: 100000, value: 144, class: "num-input" }),
    truncate: h("input", { type: "number", id: "ro-truncate", min: 0, max: 1000, value: 10, class: "num-input" }),
    topN: h("input", { type: "number", id: "ro-top", min: 1, max: 64, value: 3, class: "num-input" }),
    ply: h("select", { id: "ro-ply" }, [0, 1, 2].map((n) => h("option", { value: n }, String(n)))),
    cube: h("input", { type: "checkbox", id: "ro-cube" }),
    start: h("button", { type: "button", id: "ro-start", onclick: () => startRollout(v) }, t("position.rollout_start")),
    cancel: h("button", { type: "button", id: "ro-cancel", hidden: true, onclick: () => cancelRollout(v) }, t("position.rollout_cancel")),
    bar: h("progress", { id: "ro-progress", max: 1, value: 0, hidden: true }),
    text: h("p", { id: "ro-text", "aria-live": "polite" }),
    table: h("div", { class: "ro-results", id: "ro-results" }),
  };
  ro.box = h("section", { class: "rollout panel", id: "pos-rollout" }, h("h3", {}, t("position.rollout")),
    h("div", { class: "ro-form" }, h("label", {}, t("position.trials"), " ", ro.trials), " ", h("label", {}, t("position.truncate"), " ", ro.truncate), " ",
      h("label", { class: "dice-only" }, t("position.top"), " ", ro.topN), " ", h("label", {}, t("position.rollout_ply"), " ", ro.ply), " ",
      h("label", { class: "cube-only" }, ro.cube, " ", t("position.ro_cube"))),
    h("div", { class: "buttons" }, ro.start, ro.cancel), ro.bar, ro.text, ro.table);
  v.ro = ro;
  return ro.box;
}

function rolloutRequest(v) {
  const { s, ro } = v;
  const req = { ...body(s), trials: Math.max(1, +ro.trials.value || 144), ply: +ro.ply.value || 0, seed: 1 };
  const cut = +ro.truncate.value;
  if (cut > 0) req.truncate = cut;
  if (s.dice) {
    req.dice = s.dice;
    const plays = s.candidates.slice(0, Math.max(1, +ro.topN.value || 3)).map((c) => c.notation).filter(Boolean);
    if (plays.length) req.plays = plays;
  } else if (ro.cube.checked && s.rules.variant !== "tavla") {
    Object.assign(req, { kind: "cube", cube: cubeBody(s) }); // no double and double/take with the same dice
  }
  return req;
}

async function startRollout(v) {
  if (v.rollout) return;
  const ro = v.ro;
  const req = rolloutRequest(v);
  ro.text.textContent = t("app.loading");
  ro.table.replaceChildren();
  let job;
  try {
    job = await api("/v1/rollouts", { method: "POST", body: req });
  } catch (e) {
    ro.text.replaceChildren(h("span", { class: "error-message", role: "alert" }, problem(e)));
    return;
  }
  const controller = new AbortController();
  v.rollout = { controller, id: job.id, started: performance.now(), scale: null, last: job };
  ro.start.disabled = true; ro.cancel.hidden = false; ro.bar.hidden = false;
  showJob(v, job);
  try {
    await followJob(job.href || `/v1/rollouts/${job.id}`, (data, name) => {
      if (!v.rollout || v.rollout.id !== job.id) return;
      v.rollout.last = data;
      showJob(v, data, name);
    }, { signal: controller.signal });
  } catch (e) {
    if (e.name !== "AbortError") ro.text.replaceChildren(h("span", { class: "error-message", role: "alert" }, problem(e)));
  } finally {
    if (v.rollout && v.rollout.id === job.id) endRollout(v);
  }
}

function endRollout(v) {
  v.rollout = null;
  v.ro.start.disabled = false; v.ro.cancel.hidden = true;
}

async function cancelRollout(v) {
  if (!v.rollout) return;
  const r = v.rollout;
  try {
    await api(`/v1/rollouts/${r.id}`, { method: "DELETE" });
    v.ro.text.textContent = t("position.rollout_cancelled");
  } catch (e) {
    toast(problem(e), "error");
  }
  r.controller.abort();
  endRollout(v);
}

function showJob(v, job, event = "progress") {
  const { ro, rollout } = v;
  const done = job.trials_done || 0, total = job.trials_total || 0;
  ro.bar.value = job.progress || 0;
  ro.bar.setAttribute("aria-valuenow", String(Math.round(100 * (job.progress || 0))));
  let eta = job.eta_s;
  if (eta == null && rollout && done > 0) {
    const elapsed = (performance.now() - rollout.started) / 1000;
    eta = (elapsed / done) * (total - done);
  }
  const parts = [t("position.rollout_progress", { done, total })];
  if (event === "progress" && eta != null && done < total) parts.push(t("position.eta", { s: Math.max(0, Math.round(eta)) }));
  if (event === "done") parts.push(t("position.rollout_done"));
  else if (event === "cancelled") parts.push(t("position.rollout_cancelled"));
  else if (event === "failed") parts.push(t("position.rollout_failed", { error: job.error || "?" }));
  else parts.push(t("position.state", { state: job.state }));
  ro.text.textContent = parts.join(" · ");
  ro.text.dataset.done = String(done);
  ro.text.dataset.state = event === "progress" ? job.state : event;
  const res = (job.result?.results || job.results || [])[0];
  if (!res) return;
  if (res.kind === "cube") { cubeRows(v, res); return; }
  const rows = res.candidates ? res.candidates.map((c) => ({ name: c.play, ...c })) : [{ name: t("position.position_itself"), ...res }];
  ro.table.replaceChildren(ciTable(rows, ciScale(rollout, rows)));
}

/** A cube decision's rollout: no double and double/take with their intervals, double/pass, the action. */
function cubeRows(v, res) {
  if (res.nd == null) return;
  const rows = [{ name: t("position.ro_nd"), equity: res.nd, se: res.nd_se }];
  if (res.dt != null) rows.push({ name: t("position.ro_dt"), equity: res.dt, se: res.dt_se }, { name: t("position.ro_dp"), equity: res.dp, se: 0 });
  v.ro.table.replaceChildren(ciTable(rows, ciScale(v.rollout, rows)),
    h("p", { class: "status-line", id: "ro-cube-action" }, t("position.ro_action", { a: res.action, n: (1.96 * (res.noise || 0)).toFixed(3) })));
}

/** The equity scale of the intervals: it only widens while the rollout runs, so the bars stay comparable. */
function ciScale(rollout, rows) {
  const have = rows.filter((r) => r.equity != null && r.se != null);
  if (have.length) {
    const lo = Math.min(...have.map((r) => r.equity - 1.96 * r.se)), hi = Math.max(...have.map((r) => r.equity + 1.96 * r.se));
    if (!rollout?.scale) { if (rollout) rollout.scale = [lo - 0.05 * (hi - lo + 0.01), hi + 0.05 * (hi - lo + 0.01)]; }
    else rollout.scale = [Math.min(rollout.scale[0], lo), Math.max(rollout.scale[1], hi)];
  }
  return rollout?.scale || [-1, 1];
}

function ciTable(rows, scale) {
  const span = scale[1] - scale[0] || 1;
  return h("div", { class: "table-scroll" }, h("table", { class: "ro-table" },
    h("thead", {}, h("tr", {}, [t("position.play"), t("position.equity"), t("position.ci"), ""].map((x) => h("th", {}, x)))),
    h("tbody", {}, rows.map((r) => {
      const bar = h("div", { class: "ci-track" });
      if (r.equity != null && r.se != null) {
        const a = h("div", { class: "ci-bar" }), m = h("div", { class: "ci-mid" });
        a.style.left = `${(100 * (r.equity - 1.96 * r.se - scale[0])) / span}%`;
        a.style.width = `${Math.max(0.5, (100 * 3.92 * r.se) / span)}%`;
        m.style.left = `${(100 * (r.equity - scale[0])) / span}%`;
        bar.append(a, m);
      }
      return h("tr", {}, h("td", {}, r.name), h("td", { class: "num" }, r.equity == null ? "—" : fmt(r.equity)),
        h("td", { class: "num ci-text" }, r.se == null ? "—" : `±${(1.96 * r.se).toFixed(3)}`), h("td", { class: "ci-cell" }, bar));
    }))));
}

// ---- loading an ID
async function loadId(v, text, { dice = null, keepSettings = false } = {}) {
  const s = v.s;
  if (!text) return;
  v.message.textContent = "";
  try {
    const info = await api(`/v1/positions/${encodeURIComponent(text)}`);
    s.mine = info.board.mine; s.theirs = info.board.theirs;
    s.dice = dice || (info.dice && info.dice[0] ? info.dice : keepSettings ? s.dice : null);
    if (info.match && !keepSettings) {
      const m = info.match, me = m.turn, them = 1 - m.turn;
      s.cube = { ...s.cube, value: m.cube_value, owner: m.cube_owner == null ? "centre" : m.cube_owner === me ? "player" : "opponent",
                 match_length: m.match_length, score: m.score[me], opponent_score: m.score[them], crawford: m.crawford, jacoby: m.jacoby };
    }
    v.idInput.value = text;
    s.candidates = [];
    syncForm(v);
    v.loaded = { info, key: stateKey(s) };
    redraw(v); changed(v);
  } catch (e) {
    v.message.textContent = problem(e);
  }
}
