// The play view: a game or match against a bot through /v1/games. Address: /?view=play[&game=<id>].
// Moves by clicks on the board (a checker, then a highlighted target; legal targets come from the state's
// legal plays) or by the list of legal plays; a play is sent after a confirm step (undo before that).
import { api, ApiError } from "../api.js";
import { navigate, remember, toast } from "../shell.js";
import { t } from "../i18n.js";
import { drawBoard, boardFromPosition, arrowsOfNotation } from "../board.js";
import { h } from "../ui.js";
import { extraOptions, clockLine, autoAction, adaptiveOption, adaptiveLine } from "../play_options.js";
import { currentPlayer } from "../players.js";
import { rulesName } from "../names.js";
import { gameEnd } from "../game_end.js";
import { holdFirst, withoutHold, heldCard, cubeHintPanel, positionTypeLine } from "../trainer.js";


const who = (p) => (p === 0 ? t("play.you") : p === 1 ? t("play.bot") : "—");
const countDice = (d) => (d[0] === d[1] ? [d[0], d[0], d[0], d[0]] : [d[0], d[1]]);

// ---- moves: single-die steps of the human (bottom, own numbering; index 24 = bar) -------------------
function boardKey(st) {
  return `${st.me.join(",")}/${st.opp.join(",")}`;
}
function applyMove(st, from, to) {
  const me = [...st.me], opp = [...st.opp];
  me[from === 25 ? 24 : from - 1]--;
  if (to >= 1) {
    me[to - 1]++;
    if (opp[24 - to] === 1) { opp[24 - to] = 0; opp[24]++; }
  }
  return { me, opp };
}
function singleSteps(st, d) {
  const out = [];
  const sources = st.me[24] > 0 ? [25] : [...Array(24).keys()].map((i) => i + 1).filter((p) => st.me[p - 1] > 0);
  const allHome = st.me[24] === 0 && st.me.slice(6, 24).every((n) => n === 0);
  for (const src of sources) {
    const to = src - d;
    if (to >= 1) {
      if (st.opp[24 - to] >= 2) continue;
      out.push([src, to]);
    } else if (allHome) {
      if (to < 0 && st.me.slice(src, 6).some((n) => n > 0)) continue;
      out.push([src, 0]);
    }
  }
  return out;
}
function without(dice, d) {
  const i = dice.indexOf(d);
  return [...dice.slice(0, i), ...dice.slice(i + 1)];
}

/** The move input of one roll: legal final boards from the state's legal plays; steps that can reach one. */
class MoveInput {
  constructor(human, bot, dice, legal) {
    this.start = { me: [...human], opp: [...bot], dice: countDice(dice), steps: [] };
    this.finals = new Map();
    for (const play of legal) {
      let st = { me: [...human], opp: [...bot] };
      for (const [a, b] of arrowsOfNotation(play.notation)) st = applyMove(st, a, b);
      this.finals.set(boardKey(st), play);
    }
    this.memo = new Map();
    this.history = [this.start];
  }
  get state() { return this.history[this.history.length - 1]; }
  complete(st = this.state) { return this.finals.get(boardKey(st)) || null; }
  reach(st) {
    const key = `${boardKey(st)}|${st.dice.join("")}`;
    if (this.memo.has(key)) return this.memo.get(key);
    let ok = this.finals.has(boardKey(st));
    if (!ok && st.dice.length) {
      outer: for (const d of new Set(st.dice))
        for (const [a, b] of singleSteps(st, d))
          if (this.reach(this.child(st, a, b, d))) { ok = true; break outer; }
    }
    this.memo.set(key, ok);
    return ok;
  }
  child(st, a, b, d) {
    return { ...applyMove(st, a, b), dice: without(st.dice, d), steps: [...st.steps, [a, b]] };
  }
  /** Valid next single steps from the current state: [[from, to, die, child]]. */
  next(st = this.state) {
    if (this.complete(st)) return [];
    const out = [];
    for (const d of new Set(st.dice))
      for (const [a, b] of singleSteps(st, d)) {
        const c = this.child(st, a, b, d);
        if (this.reach(c)) out.push([a, b, d, c]);
      }
    return out;
  }
  sources() { return [...new Set(this.next().map(([a]) => a))]; }
  /** Targets of the checker on `from`, one die or several in a row: Map target -> final child state. */
  targets(from) {
    const out = new Map();
    const walk = (st, src) => {
      for (const [a, b, , c] of this.next(st)) {
        if (a !== src || out.has(b)) continue;
        out.set(b, c);
        if (b >= 1) walk(c, b);
      }
    };
    walk(this.state, from);
    return out;
  }
  go(st) { this.history.push(st); }
  undo() { if (this.history.length > 1) this.history.pop(); }
  reset() { this.history = [this.start]; }
  /** The legal plays the moves so far can still lead to. */
  candidates() {
    const out = new Set();
    const seen = new Set();
    const walk = (st) => {
      const key = `${boardKey(st)}|${st.dice.join("")}`;
      if (seen.has(key)) return;
      seen.add(key);
      const done = this.complete(st);
      if (done) { out.add(done); return; }
      for (const [, , , c] of this.next(st)) walk(c);
    };
    walk(this.state);
    return [...out];
  }
}

// The view's state: g = {root, game (the API's state), moves (MoveInput of the current roll), selected (the
// clicked source point), pending (a legal play chosen from the list), busy, log (the events so far)}.
export async function mount(el, params) {
  const g = { root: h("section", { class: "play-view" }), game: null, moves: null, selected: null, pending: null, busy: false, log: [] };
  el.append(g.root);
  if (params.game) {
    try {
      g.game = await api(`/v1/games/${encodeURIComponent(params.game)}`);
    } catch (e) {
      g.root.append(h("p", { class: "error-message", role: "alert" }, t("play.no_game", { msg: e.message })));
    }
  }
  if (gone(g)) return null; // the user left while the game loaded: the address is the next view's now
  if (g.game) render(g);
  else startForm(g);
  const onKey = (e) => keys(g, e);
  document.addEventListener("keydown", onKey);
  return () => { g.busy = true; g.gone = true; document.removeEventListener("keydown", onKey); };
}

/** Whether the view was left (unmounted, or its host replaced): late async work then neither draws nor
 * touches the address, which belongs to the view shown now. */
function gone(g) {
  return g.gone || !g.root.isConnected;
}

// ---- the start form: the whole view without a game; folded above the board while one runs
function startForm(g) {
  if (gone(g)) return;
  g.game = null;
  g.setup = null;
  remember({ view: "play" });
  const running = h("section", { class: "panel", id: "pl-running" });
  g.root.replaceChildren(newGameForm(g, true), running);
  runningGames(g, running);
}

/** The new-game form (``heading``: with its title; folded it has the summary line instead). */
function newGameForm(g, heading) {
  const sel = (id, values, prefix, value) => h("select", { id }, values.map((v) => h("option", { value: v, selected: v === value, text: t(`${prefix}${v}`) })));
  const variant = sel("pl-variant", ["international", "tavla"], "play.", "tavla");
  const hs = h("input", { type: "checkbox", id: "pl-hs" });
  const mbo = h("input", { type: "checkbox", id: "pl-mbo" });
  const length = h("input", { type: "number", id: "pl-length", min: 0, max: 25, value: 1, class: "num-input" });
  const jacoby = h("input", { type: "checkbox", id: "pl-jacoby" });
  const beaver = h("input", { type: "checkbox", id: "pl-beaver" });
  const raccoon = h("input", { type: "checkbox", id: "pl-raccoon" });
  const level = sel("pl-level", ["easy", "medium", "hard", "master"], "play.", "easy");
  level.append(adaptiveOption());
  const style = sel("pl-style", ["balanced", "aggressive", "cautious", "runner"], "play.", "balanced");
  const trainer = h("input", { type: "checkbox", id: "pl-trainer" });
  const dice = sel("pl-dice", ["server", "client"], "play.", "server");
  const autoForced = h("input", { type: "checkbox", id: "pl-auto" });
  const tavlaRow = h("div", { class: "row" }, h("label", {}, hs, " ", t("play.hit_and_stop")), h("label", {}, mbo, " ", t("play.must_bear_off")));
  const more = extraOptions();
  const moneyRow = h("div", { class: "row" }, h("label", {}, jacoby, " ", t("play.jacoby")), h("label", {}, beaver, " ", t("play.beaver")), h("label", {}, raccoon, " ", t("play.raccoon")), more.autoLabel);
  const sync = () => {
    const tavla = variant.value === "tavla";
    tavlaRow.hidden = !tavla;
    length.min = tavla ? 1 : 0;
    if (tavla && +length.value === 0) length.value = 1;
    moneyRow.hidden = tavla || +length.value !== 0;
    raccoon.disabled = !beaver.checked;
    if (!beaver.checked) raccoon.checked = false;
  };
  for (const x of [variant, length, beaver]) x.addEventListener("change", sync);
  const error = h("p", { class: "error-message", role: "alert" });
  const newGame = () => {
    const tavla = variant.value === "tavla";
    const body = {
      rules: { variant: variant.value, ...(tavla ? { hit_and_stop: hs.checked, must_bear_off: mbo.checked } : {}) },
      match_length: Math.max(0, +length.value || 0),
      bot: { level: level.value, style: style.value }, trainer: trainer.checked, dice: dice.value, auto_forced: autoForced.checked,
    };
    if (!tavla && body.match_length === 0) body.money = { jacoby: jacoby.checked, beaver: beaver.checked, raccoon: raccoon.checked };
    return more.apply(body, { tavla, money: body.match_length === 0 });
  };
  const form = h("form", { class: "start-form panel", id: "pl-start-form", onsubmit: (e) => { e.preventDefault(); start(g, newGame(), error); } },
    heading ? h("h2", {}, t("play.new")) : null,
    h("div", { class: "row" }, h("label", {}, t("play.rules"), " ", variant)), tavlaRow,
    h("div", { class: "row" }, h("label", {}, t("play.length"), " ", length)), moneyRow,
    h("div", { class: "row" }, h("label", {}, t("play.level"), " ", level), h("label", {}, t("play.style"), " ", style)),
    h("div", { class: "row" }, h("label", {}, t("play.dice"), " ", dice)),
    h("div", { class: "row" }, h("label", {}, trainer, " ", t("play.trainer"))),
    h("div", { class: "row" }, h("label", {}, autoForced, " ", t("play.auto_forced"))),
    ...more.rows,
    error,
    h("div", { class: "buttons" }, h("button", { type: "submit", id: "pl-start" }, t("play.start"))));
  sync();
  return form;
}

/** The folded new-game form above a running game: a summary line (the game's rules, length and bot) that
 * opens it. One element per game, so that an opened form keeps its state across the board's re-renders. */
function setupPanel(g) {
  if (g.setup) return g.setup;
  const s = g.game.settings || {};
  const level = s.bot?.level || g.game.bot?.level;
  const line = [t(`play.${s.rules?.variant === "tavla" ? "tavla" : "international"}`),
    g.game.match_length ? t("play.match_to", { n: g.game.match_length }) : t("play.money"),
    level ? t(`play.${level}`) : null].filter(Boolean).join(" · ");
  g.setup = h("details", { class: "play-setup panel", id: "pl-setup" },
    h("summary", { id: "pl-setup-summary" }, h("strong", {}, t("play.new")), h("span", { class: "muted" }, ` · ${line}`)),
    newGameForm(g, false));
  return g.setup;
}

/** The key's games still in play, each to go on with. */
async function runningGames(g, box) {
  try {
    // this browser's player's running games only (without a player: the key's)
    const player = currentPlayer();
    const { games } = await api(`/v1/games?${new URLSearchParams({ status: "playing", limit: 20, ...(player ? { player } : {}) })}`);
    if (!games.length || gone(g)) return;
    box.append(h("h3", {}, t("play.running")), h("ul", {}, games.map((x) => h("li", {},
      h("button", { type: "button", class: "pl-resume", dataset: { game: x.id }, onclick: () => navigate({ view: "play", game: x.id }) },
        t("play.resume", { rules: rulesName(x.rules), n: x.match_length, a: (x.score || [0, 0])[0], b: (x.score || [0, 0])[1] }))))));
  } catch { /* the list is unavailable (no key, or the store is unreachable): no list */ }
}

async function start(g, body, error) {
  error.textContent = "";
  try {
    g.game = await api("/v1/games", { method: "POST", body: { player: currentPlayer() || undefined, ...body } });
    g.log = [];
    g.setup = null; g.moves = null; g.selected = null; g.pending = null; g.hint = null; g.check = null; g.held = null; g.cubeHint = null;
    render(g);
  } catch (err) {
    error.textContent = err.message;
  }
}

// ---- acting
async function act(g, action) {
  if (g.busy) return;
  g.busy = true;
  g.root.setAttribute("aria-busy", "true");
  for (const b of g.root.querySelectorAll(".actions button, .legal-plays button, .pending button")) b.disabled = true;
  let held = null; // the trainer held the decision (sent with hold): nothing was made
  try {
    const r = await api(`/v1/games/${g.game.id}/actions`, { method: "POST", body: action });
    g.log.push(...(r.events || []).filter((e) => e.type !== "held"));
    g.game = r;
    if (r.held) held = { verdict: r.held, action: withoutHold(action) };
  } catch (e) {
    toast(e.message, "error");
    if (e instanceof ApiError && e.status === 409) {
      try { g.game = await api(`/v1/games/${g.game.id}`); } catch { /* keep the old state */ }
    }
  } finally {
    g.busy = false;
    g.root.removeAttribute("aria-busy");
    if (!held) { g.moves = null; g.selected = null; g.pending = null; } // a held play stays on the board
    g.hint = null; g.check = null; g.held = held; g.cubeHint = null;
    render(g);
    if (held) g.root.querySelector("#pl-held-undo")?.focus();
  }
}

/** An action the trainer judges first (when it is on): sent with hold, one whose loss reaches the threshold comes
 * back held, not made (one request; "Play anyway" sends it again without hold). */
function decide(g, action) {
  return act(g, holdFirst(g.game, action));
}

/** Leave the held card: a play's steps are taken back (the same dice again); a cube action is not made. */
function undoHeld(g) {
  if (g.held?.action.action === "play") { g.pending = null; g.moves?.reset(); g.selected = null; }
  g.held = null;
  render(g);
}

/** Help that makes no move: a hint (counted: the state comes back) or a check of the chosen play. */
async function help(g, action) {
  try {
    const r = await api(`/v1/games/${g.game.id}/actions`, { method: "POST", body: action });
    if (action.action === "hint") { g.log.push(...(r.events || [])); g.game = r; g.hint = r.hint; g.cubeHint = r.cube_hint; } else g.check = r.check;
  } catch (e) {
    toast(e.message, "error");
  }
  render(g);
}

// ---- the game screen
function myMove(game) {
  return game.status === "playing" && game.to_act === 0 && game.actions.includes("play") && game.dice;
}

/** Keys of the game screen: r roll, c confirm the chosen play, u undo, h hint (not while typing in a field). */
function keys(g, e) {
  if (!g.game || e.ctrlKey || e.metaKey || e.altKey || ["INPUT", "SELECT", "TEXTAREA"].includes(e.target?.tagName)) return;
  if (g.held && e.key === "Escape") { e.preventDefault(); undoHeld(g); return; }  // Esc: the card's first choice
  const id = { r: "pl-roll", c: "pl-confirm", u: "pl-undo", h: "pl-hint, #pl-hint-cube" }[e.key.toLowerCase()];
  const button = id && g.root.querySelector(`#${id}`);
  if (button && !button.disabled) { e.preventDefault(); button.click(); }
}

/** The game screen: the folded new-game form, then the board in the centre, the controls on its right and
 * the record of the game (events, trainer) on its left (views.css: one column on a phone). */
function render(g) {
  if (gone(g)) return; // a late answer (an action, the auto-roll) after the user left the view
  const game = g.game;
  remember({ view: "play", game: game.id });
  if (myMove(game) && !g.moves) g.moves = new MoveInput(game.board.checkers.human, game.board.checkers.bot, game.dice, game.legal_plays);
  if (!myMove(game)) g.moves = null;
  const { holder, board, current } = gameBoard(g);
  const { controls, record } = sidePanels(g, current);
  g.root.replaceChildren(setupPanel(g), h("div", { class: "play-layout play-game" },
    h("div", { class: "board-col" }, statusHead(game, board), holder),
    h("div", { class: "side-col" }, ...controls),
    h("div", { class: "record-col" }, ...record)));
  const logEl = g.root.querySelector("#pl-events");
  if (logEl) logEl.scrollTop = logEl.scrollHeight;
  const auto = autoAction(game, g.pending ? null : current, g); // the settings' auto-roll and auto-confirm
  if (auto && !g.held) setTimeout(() => decide(g, auto)); // the trainer holds an auto-confirmed play too
}

/** The board with the moves so far (or the play chosen from the list), its targets; current: a complete play. */
function gameBoard(g) {
  const { game, moves, pending, selected } = g;
  const tavla = game.settings?.rules?.variant === "tavla";
  const st = moves ? moves.state : null;
  const board = boardFromPosition(st ? st.me : game.board.checkers.human, st ? st.opp : game.board.checkers.bot);
  board.dice = game.dice;
  if (!tavla) board.cube = { value: game.cube.value, owner: game.cube.owner === 0 ? "bottom" : game.cube.owner === 1 ? "top" : null };
  let highlight = [];
  let arrows = [];
  let current = null;
  if (moves) {
    current = pending || moves.complete();
    if (pending) {
      // a play from the list: show it on the starting board
      const b0 = boardFromPosition(game.board.checkers.human, game.board.checkers.bot);
      Object.assign(board, { bottom: b0.bottom, top: b0.top, offBottom: b0.offBottom, offTop: b0.offTop, pips: b0.pips });
      arrows = arrowsOfNotation(pending.notation);
    } else {
      arrows = st.steps;
      highlight = selected != null ? [...moves.targets(selected).keys()] : moves.sources();
    }
  }
  const holder = h("div", { class: "board-holder", id: "pl-board" });
  const input = moves && !pending;
  drawBoard(holder, board, { arrows, highlight, selected, onPoint: input ? (point) => click(g, point) : null,
    onDrag: input ? (from, to) => { g.selected = null; click(g, from); click(g, to); } : null, diceOn: game.turn === 1 ? "top" : "bottom", tavla,
    label: `${t("board.label")}: ${game.board.position_id}` });
  return { holder, board, current };
}

function statusHead(game, board) {
  const score = game.score || [0, 0];
  return h("div", { class: "status" },
    h("p", { class: "status-line", id: "pl-status" },
      `${t("play.game", { n: game.game })} · ${t("play.score", { a: score[0], b: score[1] })} · `,
      game.match_length ? t("play.match_to", { n: game.match_length }) : t("play.money"),
      game.crawford ? " · Crawford" : "",
      game.status === "playing" ? ` · ${game.to_act === 0 ? t("play.your_turn") : t("play.bots_turn")}` : "",
      game.settings?.free ? h("span", { class: "badge", id: "pl-free" }, t("play_options.free_badge")) : null),
    clockLine(game)?.el,
    adaptiveLine(game),
    positionTypeLine(game.position_type),
    h("p", { class: "muted" }, t("play.pips", { a: board.pips[0], b: board.pips[1] })));
}

/** The panels beside the board: controls (the decision, the end of the game) and record (trainer, events). */
function sidePanels(g, current) {
  const game = g.game;
  const side = [];
  const record = [];
  if (game.status === "finished") side.push(finishedPanel(g));
  else {
    if (game.resignation && game.resignation.player === 1)
      side.push(h("p", { class: "offer" }, t("play.resign_offer", { who: who(1), level: t(`play.${game.resignation.level}`) })));
    if (game.phase === "double" || game.actions.includes("take"))
      side.push(h("p", { class: "offer" }, t("play.cube_offered", { who: who(game.turn), v: game.cube.value * 2 })));
    if (g.held) side.push(heldCard(g.held, { undo: () => undoHeld(g), anyway: () => act(g, g.held.action), act: (a) => act(g, a) }));
    else {
      if (g.moves) side.push(movePanel(g, current));
      side.push(actionsPanel(g));
      if (g.cubeHint) side.push(cubeHintPanel(g.cubeHint));
    }
  }
  side.push(...gameEnd(game, { changed: (r) => { g.log.push(...(r.events || [])); g.game = r; render(g); }, gone: () => startForm(g) }));
  if (game.trainer) record.push(trainerPanel(game.trainer));
  record.push(h("section", { class: "panel" }, h("h3", {}, t("play.events")),
    h("ol", { class: "event-log", id: "pl-events", "aria-live": "polite" }, g.log.slice(-60).map((e) => h("li", {}, eventText(e))))));
  side.push(h("div", { class: "buttons" }, h("button", { type: "button", id: "pl-new", onclick: () => openSetup(g) }, t("play.new"))));
  return { controls: side, record };
}

/** Unfold the new-game form above the board and put the focus in it. */
function openSetup(g) {
  const setup = g.root.querySelector("#pl-setup");
  if (!setup) return;
  setup.open = true;
  setup.scrollIntoView({ block: "start" });
  setup.querySelector("select, input")?.focus();
}

function click(g, point) {
  const { moves } = g;
  if (!moves || g.pending) return;
  if (g.selected != null) {
    const targets = moves.targets(g.selected);
    if (targets.has(point)) {
      moves.go(targets.get(point));
      g.selected = null;
      // a single checker left to move with one choice: select it for the next click
      const src = moves.sources();
      if (!moves.complete() && src.length === 1) g.selected = src[0];
      render(g);
      g.root.querySelector(`#pl-board .hit[data-point="${point}"]`)?.focus();
      return;
    }
    if (point === g.selected) { g.selected = null; render(g); return; }
  }
  g.selected = moves.sources().includes(point) ? point : null;
  render(g);
  g.root.querySelector(`#pl-board .hit[data-point="${point}"]`)?.focus();
}

// ---- the side panels
function movePanel(g, current) {
  const { moves, pending } = g;
  const st = moves.state;
  const parts = [];
  if (current) {
    parts.push(h("p", { class: "pending", id: "pl-pending" }, t("play.pending", { play: current.notation || t("play.no_move") })));
  } else {
    const left = moves.candidates();
    if (st.steps.length) parts.push(h("p", { class: "pending" }, t("play.partial", { play: st.steps.map(([a, b]) => `${a === 25 ? "bar" : a}/${b || "off"}`).join(" ") })));
    parts.push(h("p", { class: "muted small-text" }, g.selected != null ? t("play.pick_target") : t("play.pick")));
    if (left.length === 1 && st.steps.length) current = left[0], parts.push(h("p", { class: "pending" }, t("play.one_left", { play: left[0].notation })));
  }
  const buttons = h("div", { class: "buttons" });
  if (current) buttons.append(h("button", { type: "button", id: "pl-confirm", class: "primary", onclick: () => decide(g, { action: "play", position_id: current.position_id }) }, t("play.confirm")));
  if (current) buttons.append(h("button", { type: "button", id: "pl-check", onclick: () => help(g, { action: "check", position_id: current.position_id }) }, t("play.check")));
  const left = g.game.hints_left;
  if (left !== 0) buttons.append(h("button", { type: "button", id: "pl-hint", onclick: () => help(g, { action: "hint" }) },
    t("play.hint"), left != null ? ` (${t("play.hints_left", { n: left })})` : ""));
  if (pending || st.steps.length) {
    buttons.append(h("button", { type: "button", id: "pl-undo", onclick: () => { if (g.pending) g.pending = null; else moves.undo(); g.selected = null; render(g); } }, t("play.undo")));
    if (st.steps.length > 1) buttons.append(h("button", { type: "button", id: "pl-reset", onclick: () => { g.pending = null; moves.reset(); g.selected = null; render(g); } }, t("play.reset")));
  }
  const legal = g.game.legal_plays;
  // a long list starts folded; once the player opens or folds it, it stays so across re-renders
  const list = h("details", { class: "legal", open: g.legalOpen ?? legal.length <= 24 },
    h("summary", { onclick: () => { g.legalOpen = !list.open; } }, t("play.legal", { n: legal.length })),
    h("div", { class: "legal-plays", id: "pl-legal" }, legal.map((p) => h("button", {
      type: "button", class: "legal-play", "aria-pressed": pending === p ? "true" : "false",
      onclick: () => { moves.reset(); g.selected = null; g.pending = p; render(g); g.root.querySelector("#pl-confirm")?.focus(); },
    }, p.notation || t("play.no_move")))));
  return h("section", { class: "panel move-panel" }, ...parts, buttons, helpPanels(g), list);
}

function helpPanels(g) {
  const out = h("div", { class: "help-panels" });
  if (g.check) {
    const v = g.check;
    out.append(h("div", { class: `verdict ${v.mark || "ok"}`, id: "pl-checked" }, h("strong", {}, t("play.check_title")),
      ` · ${v.played}`, v.best !== v.played ? ` · ${t("play.best", { play: v.best })}` : "", ` · ${t("play.loss", { loss: v.loss.toFixed(3) })}`,
      v.warn ? h("p", { class: "error-message", id: "pl-warn" }, t("play.warn")) : null, v.why ? h("p", {}, v.why) : null));
  }
  if (g.hint) {
    out.append(h("div", { id: "pl-hints" }, h("strong", {}, t("play.hint_title")), h("ol", {}, g.hint.map((c) => h("li", {},
      h("button", { type: "button", class: "play-button", onclick: () => {
        const p = g.game.legal_plays.find((x) => x.position_id === c.position_id);
        if (p) { g.moves.reset(); g.selected = null; g.pending = p; render(g); }
      } }, c.notation), ` ${c.loss ? `−${c.loss.toFixed(3)}` : ""}`)))));
  }
  return out;
}

function actionsPanel(g) {
  const game = g.game;
  const box = h("div", { class: "actions buttons", id: "pl-actions" });
  const client = game.dice_mode === "client";
  for (const a of game.actions) {
    if (a === "play") continue;
    if (a === "roll" && client) {
      const opening = game.phase === "opening";
      const d1 = dieSelect(1, opening ? t("play.your_die") : t("play.die", { n: 1 }));
      const d2 = dieSelect(2, opening ? t("play.bot_die") : t("play.die", { n: 2 }));
      box.append(h("span", { class: "client-dice" }, game.to_act === 1 ? t("play.bot_roll") + " " : "", d1, " ", d2, " ",
        h("button", { type: "button", id: "pl-roll", onclick: () => decide(g, { action: "roll", dice: [+d1.value, +d2.value] }) }, t("play.roll"))));
      continue;
    }
    if (a === "resign") {
      const levels = game.resign_levels || ["single"];
      const level = h("select", { id: "pl-resign-level", "aria-label": t("play.resign") }, levels.map((l) => h("option", { value: l, text: t(`play.${l}`) })));
      box.append(h("span", { class: "resign" }, h("button", { type: "button", id: "pl-resign", onclick: () => act(g, { action: "resign", level: level.value }) }, t("play.resign")), " ", level));
      const preview = game.resign_preview;
      if (preview) {
        const yes = levels.filter((l) => preview[l]).map((l) => t(`play.${l}`));
        box.append(h("p", { class: "muted small-text", id: "pl-resign-preview" }, yes.length ? t("play.would_accept", { levels: yes.join(", ") }) : t("play.would_refuse")));
      }
      continue;
    }
    const label = { beaver: "play.beaver_a", raccoon: "play.raccoon_a" }[a] || `play.${a}`;
    box.append(h("button", { type: "button", id: `pl-${a}`, class: a === "roll" ? "primary" : null, onclick: () => decide(g, { action: a }) }, t(label)));
  }
  const cube = game.to_act === 0 && ((game.phase === "roll" && game.actions.includes("double")) || game.phase === "doubled");
  if (cube && game.hints_left !== 0) box.append(h("button", { type: "button", id: "pl-hint-cube", onclick: () => help(g, { action: "hint" }) },
    t("play.hint"), game.hints_left != null ? ` (${t("play.hints_left", { n: game.hints_left })})` : ""));
  return box;
}

function dieSelect(n, label) {
  return h("select", { id: `pl-die${n}`, "aria-label": label }, [1, 2, 3, 4, 5, 6].map((v) => h("option", { value: v, text: v })));
}

function trainerPanel(v) {
  const mark = v.mark || "ok";
  return h("section", { class: `panel verdict ${mark}`, id: "pl-trainer" }, h("h3", {}, t("play.trainer_title")),
    h("p", {}, h("strong", {}, t(`play.mark_${mark}`) || mark), v.played ? ` · ${v.played}` : "",
      v.best && v.best !== v.played ? ` · ${t("play.best", { play: v.best })}` : "",
      v.loss != null ? ` · ${t("play.loss", { loss: v.loss.toFixed(3) })}` : ""),
    v.why ? h("p", {}, v.why) : null);
}

function finishedPanel(g) {
  const game = g.game;
  const r = game.result || {};
  const score = r.score || game.score || [0, 0];
  const out = h("div", { class: "verify-out", id: "pl-verify-out", "aria-live": "polite" });
  const links = h("div", { class: "buttons", id: "pl-export" });
  for (const fmt of ["mat", "sgf", "txt"]) // a Tavla .sgf says in its comment that gnubg cannot read it
    links.append(h("button", { type: "button", id: `pl-export-${fmt}`, onclick: () => download(g.game, fmt, links) }, t("play.export", { fmt })));
  const verify = h("button", { type: "button", id: "pl-verify", onclick: () => verifyDice(g.game, out) }, t("play.verify"));
  return h("section", { class: "panel finished", id: "pl-finished" },
    h("p", { class: "status-line" }, r.winner == null ? t("play.finished_money", { a: score[0], b: score[1] }) : t("play.finished", { who: who(r.winner), a: score[0], b: score[1] })),
    game.dice_mode === "server" ? verify : null, out, links,
    h("div", { class: "buttons" }, h("button", { type: "button", id: "pl-analyse", onclick: () => analyse(g.game) }, t("play.analyse")),
      h("button", { type: "button", id: "pl-replay", onclick: () => navigate({ view: "replay", game: g.game.id }) }, t("play.replay"))));
}

/** "Analyse this game": the finished match as an analysis job, opened in the analysis view. */
async function analyse(game) {
  try {
    const job = await api(`/v1/games/${game.id}/analysis`, { method: "POST", body: {} });
    navigate({ view: "analysis", job: job.id });
  } catch (e) {
    toast(e.message, "error");
  }
}

async function verifyDice(game, out) {
  try {
    const v = await api(`/v1/games/${game.id}/verify`, { method: "POST" });
    out.replaceChildren(h("p", { class: v.verified ? "ok" : "error-message", id: "pl-verified" }, v.verified ? t("play.verified", { n: v.rolls }) : t("play.not_verified")),
      h("p", { class: "muted" }, t("play.commitment", { c: v.dice_commitment })), h("p", { class: "muted" }, t("play.seed", { s: v.dice_seed })));
  } catch (e) {
    out.replaceChildren(h("p", { class: "error-message", role: "alert" }, e.message));
  }
}

async function download(game, fmt, links) {
  try {
    const text = await api(`/v1/games/${game.id}/export?format=${fmt}`);
    const url = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
    const a = h("a", { href: url, download: `${game.id}.${fmt}`, class: "download", id: `pl-file-${fmt}` }, `${game.id}.${fmt}`);
    links.append(a);
    a.click();
  } catch (e) {
    toast(e.message, "error");
  }
}

// ---- the event log in words
function eventText(e) {
  const d = e.details || {};
  const w = who(e.player);
  switch (e.type) {
    case "opening": {
      const base = t("play.ev_opening", { a: d.dice?.[0], b: d.dice?.[1] });
      return `${base}. ${d.winner == null ? t("play.ev_opening_tie") : t(d.winner === 0 ? "play.ev_opening_you" : "play.ev_opening_bot")}`;
    }
    case "roll": return t("play.ev_roll", { who: w, a: d.dice?.[0], b: d.dice?.[1] });
    case "play":
      if (!d.notation) return t("play.ev_cannot", { who: w });
      return t(d.auto ? "play.ev_play_auto" : "play.ev_play", { who: w, play: d.notation }) + (d.verdict?.mark && d.verdict.mark !== "ok" ? ` (${t(`play.mark_${d.verdict.mark}`)})` : "");
    case "double": case "beaver": case "raccoon": return t(`play.ev_${e.type}`, { who: w, v: d.cube });
    case "take": case "drop": case "accept": case "reject": case "timeout": return t(`play.ev_${e.type}`, { who: w });
    case "resign": return t("play.ev_resign", { who: w, level: t(`play.${d.level}`) });
    case "forfeit": return t("gameend.ev_forfeit", { who: w });
    case "game_end": return t("play.ev_game_end", { who: w, points: d.points,
      how: t(`gameend.how_${d.how || "bearoff"}`) + (d.outcome && d.outcome !== "single" ? ` (${t(`gameend.outcome_${d.outcome}`)})` : "") });
    case "game_start": return t("play.ev_game_start", { game: d.game, a: d.score?.[0], b: d.score?.[1] });
    case "hint": return t("play.ev_hint", { who: w });
    case "finished": return t("play.ev_finished");
    default: return `${e.type} ${w}`;
  }
}
