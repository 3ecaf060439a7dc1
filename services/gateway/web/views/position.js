// The position view: paste an ID or set a position up, then the hint (candidates with arrows), the cube
// decision, resignations, and rollouts of the top candidates as jobs with live progress.
// Address: /?position=<Position ID | PositionID:MatchID | XGID>&dice=31 (and rules, cube, match settings).
import { api, streamEvents } from "../api.js";
import { remember, toast } from "../shell.js";
import { t, addMessages } from "../i18n.js";
import { drawBoard, boardFromPosition, arrowsOfNotation } from "../board.js";
import { h, positionId, fmtEqAscii as fmt, fmtPctBare as pct, problemText } from "../ui.js";

addMessages({
  en: {
    pos_title: "Position", pos_id_label: "Position ID, GNUbg ID or XGID", pos_show: "Show",
    pos_editor: "Set up", pos_side: "Checkers of", pos_side_bottom: "player on roll (bottom)",
    pos_side_top: "opponent (top)", pos_mode: "Click", pos_mode_add: "adds", pos_mode_remove: "removes",
    pos_start: "Starting position", pos_clear: "Clear board", pos_swap: "Swap sides",
    pos_editor_help: "Click a point (or focus it and press Enter) to add a checker; shift-click or right-click removes one.",
    pos_dice: "Dice", pos_die: "die {n}", pos_no_dice: "—", pos_rules: "Rules", pos_international: "International",
    pos_tavla: "Tavla", pos_hit_and_stop: "hit and stop", pos_must_bear_off: "must bear off",
    pos_cube: "Cube", pos_owner: "owner", pos_centre: "centre", pos_player: "player on roll", pos_opponent: "opponent",
    pos_match: "Match length (0 = money)", pos_score: "Score (on roll – opponent)", pos_crawford: "Crawford",
    pos_jacoby: "Jacoby", pos_beaver: "beavers", pos_ply: "Search depth (ply)",
    pos_hint: "Hint", pos_candidates: "{n} of {total} legal plays", pos_no_legal: "No legal play.",
    pos_play: "Play", pos_equity: "Equity", pos_loss: "Loss", pos_win: "Win", pos_wg: "W g", pos_wbg: "W bg",
    pos_lg: "L g", pos_lbg: "L bg", pos_select: "Show {play} on the board",
    pos_cube_title: "Cube decision", pos_cube_tavla: "Tavla is played without a cube: no cube decision or resignation.",
    pos_nd: "No double", pos_dt: "Double, take", pos_dp: "Double, pass", pos_take_point: "take point",
    pos_resign_title: "Resignation", pos_resign_level: "Resign", pos_resigner: "offered by",
    pos_judge: "Judge", pos_single: "single", pos_gammon: "gammon", pos_backgammon: "backgammon",
    pos_accept: "{who} should accept ({value} vs {play_on} playing on; the wrong answer costs {cost}).",
    pos_reject: "{who} should reject ({value} vs {play_on} playing on; the wrong answer costs {cost}).",
    pos_should_resign: "The player on roll should resign: {level}.", pos_should_not_resign: "The player on roll should play on.",
    pos_the_opponent: "The opponent", pos_the_player: "The player on roll",
    pos_rollout: "Rollout", pos_trials: "Trials", pos_truncate: "Truncate after (half-moves, 0 = none)",
    pos_top: "Candidates", pos_rollout_start: "Roll out", pos_rollout_cancel: "Cancel",
    pos_rollout_progress: "{done} of {total} trials", pos_eta: "about {s} s left", pos_state: "State: {state}",
    pos_ci: "95% interval", pos_position_itself: "this position", pos_rollout_done: "Rollout done.",
    pos_rollout_cancelled: "Rollout cancelled.", pos_rollout_failed: "Rollout failed: {error}",
    pos_pips: "Pips: {bottom} (on roll) – {top}", pos_wrong_side: "That point holds the other side's checkers.",
    pos_full: "Each side has 15 checkers.",
  },
  de: {
    pos_title: "Stellung", pos_id_label: "Position ID, GNUbg ID oder XGID", pos_show: "Anzeigen",
    pos_editor: "Aufstellen", pos_side: "Steine von", pos_side_bottom: "Spieler am Zug (unten)",
    pos_side_top: "Gegner (oben)", pos_mode: "Klick", pos_mode_add: "setzt", pos_mode_remove: "entfernt",
    pos_start: "Grundstellung", pos_clear: "Brett leeren", pos_swap: "Seiten tauschen",
    pos_editor_help: "Auf einen Punkt klicken (oder ihn fokussieren und Enter drücken) setzt einen Stein; Umschalt- oder Rechtsklick entfernt einen.",
    pos_dice: "Würfel", pos_die: "Würfel {n}", pos_no_dice: "—", pos_rules: "Regeln", pos_international: "International",
    pos_tavla: "Tavla", pos_hit_and_stop: "Schlagen und stehen", pos_must_bear_off: "Abtragen ist Pflicht",
    pos_cube: "Doppler", pos_owner: "Besitzer", pos_centre: "Mitte", pos_player: "Spieler am Zug", pos_opponent: "Gegner",
    pos_match: "Matchlänge (0 = Geldspiel)", pos_score: "Stand (am Zug – Gegner)", pos_crawford: "Crawford",
    pos_jacoby: "Jacoby", pos_beaver: "Beaver", pos_ply: "Suchtiefe (Ply)",
    pos_hint: "Tipp", pos_candidates: "{n} von {total} legalen Zügen", pos_no_legal: "Kein legaler Zug.",
    pos_play: "Zug", pos_equity: "Equity", pos_loss: "Verlust", pos_win: "Sieg", pos_wg: "S g", pos_wbg: "S bg",
    pos_lg: "V g", pos_lbg: "V bg", pos_select: "{play} auf dem Brett zeigen",
    pos_cube_title: "Dopplerentscheidung", pos_cube_tavla: "Tavla wird ohne Doppler gespielt: keine Dopplerentscheidung, keine Aufgabe.",
    pos_nd: "Kein Doppel", pos_dt: "Doppel, annehmen", pos_dp: "Doppel, passen", pos_take_point: "Annahmepunkt",
    pos_resign_title: "Aufgabe", pos_resign_level: "Aufgeben", pos_resigner: "angeboten von",
    pos_judge: "Bewerten", pos_single: "einfach", pos_gammon: "Gammon", pos_backgammon: "Backgammon",
    pos_accept: "{who} sollte annehmen ({value} gegen {play_on} beim Weiterspielen; die falsche Antwort kostet {cost}).",
    pos_reject: "{who} sollte ablehnen ({value} gegen {play_on} beim Weiterspielen; die falsche Antwort kostet {cost}).",
    pos_should_resign: "Der Spieler am Zug sollte aufgeben: {level}.", pos_should_not_resign: "Der Spieler am Zug sollte weiterspielen.",
    pos_the_opponent: "Der Gegner", pos_the_player: "Der Spieler am Zug",
    pos_rollout: "Rollout", pos_trials: "Partien", pos_truncate: "Abbrechen nach (Halbzügen, 0 = nie)",
    pos_top: "Kandidaten", pos_rollout_start: "Ausrollen", pos_rollout_cancel: "Abbrechen",
    pos_rollout_progress: "{done} von {total} Partien", pos_eta: "noch etwa {s} s", pos_state: "Zustand: {state}",
    pos_ci: "95%-Intervall", pos_position_itself: "diese Stellung", pos_rollout_done: "Rollout fertig.",
    pos_rollout_cancelled: "Rollout abgebrochen.", pos_rollout_failed: "Rollout fehlgeschlagen: {error}",
    pos_pips: "Pips: {bottom} (am Zug) – {top}", pos_wrong_side: "Auf diesem Punkt stehen Steine der anderen Seite.",
    pos_full: "Jede Seite hat 15 Steine.",
  },
  tr: {
    pos_title: "Pozisyon", pos_id_label: "Position ID, GNUbg ID veya XGID", pos_show: "Göster",
    pos_editor: "Diz", pos_side: "Pullar", pos_side_bottom: "sıradaki oyuncu (alt)",
    pos_side_top: "rakip (üst)", pos_mode: "Tıklama", pos_mode_add: "ekler", pos_mode_remove: "kaldırır",
    pos_start: "Başlangıç dizilişi", pos_clear: "Tahtayı boşalt", pos_swap: "Tarafları değiştir",
    pos_editor_help: "Bir haneye tıklamak (ya da seçip Enter'a basmak) pul ekler; Shift ile ya da sağ tıklamak bir pul kaldırır.",
    pos_dice: "Zarlar", pos_die: "zar {n}", pos_no_dice: "—", pos_rules: "Kurallar", pos_international: "Uluslararası",
    pos_tavla: "Tavla", pos_hit_and_stop: "vuran durur", pos_must_bear_off: "toplamak zorunlu",
    pos_cube: "Katlama küpü", pos_owner: "sahibi", pos_centre: "ortada", pos_player: "sıradaki oyuncu", pos_opponent: "rakip",
    pos_match: "Maç uzunluğu (0 = para oyunu)", pos_score: "Skor (sıradaki – rakip)", pos_crawford: "Crawford",
    pos_jacoby: "Jacoby", pos_beaver: "beaver", pos_ply: "Arama derinliği (ply)",
    pos_hint: "İpucu", pos_candidates: "{total} yasal hamleden {n} tanesi", pos_no_legal: "Yasal hamle yok.",
    pos_play: "Hamle", pos_equity: "Ekuite", pos_loss: "Kayıp", pos_win: "Kazanç", pos_wg: "K g", pos_wbg: "K bg",
    pos_lg: "Ka g", pos_lbg: "Ka bg", pos_select: "{play} hamlesini tahtada göster",
    pos_cube_title: "Katlama kararı", pos_cube_tavla: "Tavla küpsüz oynanır: katlama kararı ve pes etme yok.",
    pos_nd: "Katlama yok", pos_dt: "Katla, kabul", pos_dp: "Katla, pas", pos_take_point: "kabul noktası",
    pos_resign_title: "Pes etme", pos_resign_level: "Pes", pos_resigner: "teklif eden",
    pos_judge: "Değerlendir", pos_single: "tek", pos_gammon: "mars", pos_backgammon: "backgammon",
    pos_accept: "{who} kabul etmeli (oynamaya devam: {play_on}, kabul: {value}; yanlış cevabın bedeli {cost}).",
    pos_reject: "{who} reddetmeli (oynamaya devam: {play_on}, kabul: {value}; yanlış cevabın bedeli {cost}).",
    pos_should_resign: "Sıradaki oyuncu pes etmeli: {level}.", pos_should_not_resign: "Sıradaki oyuncu oynamaya devam etmeli.",
    pos_the_opponent: "Rakip", pos_the_player: "Sıradaki oyuncu",
    pos_rollout: "Rollout", pos_trials: "Deneme", pos_truncate: "Kes (yarım hamle sonra, 0 = kesme)",
    pos_top: "Adaylar", pos_rollout_start: "Rollout başlat", pos_rollout_cancel: "İptal",
    pos_rollout_progress: "{total} denemeden {done} tanesi", pos_eta: "yaklaşık {s} sn kaldı", pos_state: "Durum: {state}",
    pos_ci: "%95 aralığı", pos_position_itself: "bu pozisyon", pos_rollout_done: "Rollout bitti.",
    pos_rollout_cancelled: "Rollout iptal edildi.", pos_rollout_failed: "Rollout başarısız: {error}",
    pos_pips: "Pip: {bottom} (sıradaki) – {top}", pos_wrong_side: "O hanede diğer tarafın pulları var.",
    pos_full: "Her tarafın 15 pulu vardır.",
  },
});

const START = [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0];

const sum = (a) => a.reduce((x, y) => x + y, 0);
/** An error in words: the API's detail, or "Error: ..." of any other. */
const problem = (e) => problemText(e, { fields: false, label: true });

export async function mount(el, params) {
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
  let generation = 0;
  let rollout = null; // {controller, id, state}
  let timer = null;

  // ---- layout
  const idInput = h("input", { id: "pos-id", name: "position", autocomplete: "off", spellcheck: "false", class: "id-input", placeholder: "4HPwATDgc/ABMA" });
  const message = h("p", { class: "error-message", role: "alert", id: "pos-error" });
  const boardHolder = h("div", { class: "board-holder" });
  const pipsLine = h("p", { class: "pips-line muted" });
  const idsLine = h("p", { class: "ids-line muted" });
  const die1 = diceSelect(1), die2 = diceSelect(2);
  const variant = h("select", { id: "pos-variant" },
    h("option", { value: "international", text: t("pos_international") }), h("option", { value: "tavla", text: t("pos_tavla") }));
  const hs = h("input", { type: "checkbox", id: "pos-hs" });
  const mbo = h("input", { type: "checkbox", id: "pos-mbo" });
  const tavlaOpts = h("span", { class: "tavla-options" },
    h("label", {}, hs, " ", t("pos_hit_and_stop")), " ", h("label", {}, mbo, " ", t("pos_must_bear_off")));
  const cubeValue = h("select", { id: "pos-cube" }, [1, 2, 4, 8, 16, 32, 64].map((v) => h("option", { value: v, text: v })));
  const cubeOwner = h("select", { id: "pos-owner" }, ["centre", "player", "opponent"].map((v) => h("option", { value: v, text: t(`pos_${v}`) })));
  const matchLen = h("input", { type: "number", id: "pos-ml", min: 0, max: 25, class: "num-input" });
  const score1 = h("input", { type: "number", id: "pos-score1", min: 0, max: 24, class: "num-input", "aria-label": t("pos_player") });
  const score2 = h("input", { type: "number", id: "pos-score2", min: 0, max: 24, class: "num-input", "aria-label": t("pos_opponent") });
  const crawford = h("input", { type: "checkbox", id: "pos-cr" });
  const jacoby = h("input", { type: "checkbox", id: "pos-jacoby" });
  const beaver = h("input", { type: "checkbox", id: "pos-beaver" });
  const ply = h("select", { id: "pos-ply" }, [0, 1, 2].map((v) => h("option", { value: v, text: v })));
  const cubeFields = h("div", { class: "cube-fields" },
    h("label", {}, t("pos_cube"), " ", cubeValue), " ", h("label", {}, t("pos_owner"), " ", cubeOwner),
    h("div", {}, h("label", {}, t("pos_match"), " ", matchLen)),
    h("div", { class: "match-only" }, h("span", {}, t("pos_score"), " "), score1, " – ", score2, " ", h("label", {}, crawford, " ", t("pos_crawford"))),
    h("div", { class: "money-only" }, h("label", {}, jacoby, " ", t("pos_jacoby")), " ", h("label", {}, beaver, " ", t("pos_beaver"))));

  const sideRadios = h("div", { class: "radios", role: "radiogroup", "aria-label": t("pos_side") }, h("span", {}, t("pos_side"), ": "),
    radio("pos-side", "bottom", t("pos_side_bottom"), true, () => (s.side = "bottom")),
    radio("pos-side", "top", t("pos_side_top"), false, () => (s.side = "top")));
  const modeRadios = h("div", { class: "radios", role: "radiogroup", "aria-label": t("pos_mode") }, h("span", {}, t("pos_mode"), ": "),
    radio("pos-mode", "add", t("pos_mode_add"), true, () => (s.mode = "add")),
    radio("pos-mode", "remove", t("pos_mode_remove"), false, () => (s.mode = "remove")));
  const editor = h("details", { class: "editor panel" }, h("summary", {}, t("pos_editor")),
    h("p", { class: "muted small-text" }, t("pos_editor_help")), sideRadios, modeRadios,
    h("div", { class: "buttons" },
      h("button", { type: "button", onclick: () => setBoard([...START], [...START]) }, t("pos_start")),
      h("button", { type: "button", onclick: () => setBoard(new Array(25).fill(0), new Array(25).fill(0)) }, t("pos_clear")),
      h("button", { type: "button", onclick: () => setBoard([...s.theirs], [...s.mine]) }, t("pos_swap"))));

  const settings = h("fieldset", { class: "pos-settings panel" }, h("legend", {}, t("pos_dice"), " · ", t("pos_rules"), " · ", t("pos_cube")),
    h("div", { class: "dice-row" }, h("span", {}, t("pos_dice"), " "), die1, " ", die2),
    h("div", {}, h("label", {}, t("pos_rules"), " ", variant), " ", tavlaOpts),
    cubeFields,
    h("div", {}, h("label", {}, t("pos_ply"), " ", ply)));

  const hintBox = h("section", { class: "hint panel", "aria-live": "polite", id: "pos-hint" });
  const cubeBox = h("section", { class: "cube-decision panel", id: "pos-cube-decision" });
  const resignLevel = h("select", { id: "pos-resign-level" }, ["single", "gammon", "backgammon"].map((v) => h("option", { value: v, text: t(`pos_${v}`) })));
  const resigner = h("select", { id: "pos-resigner" }, h("option", { value: "opponent", text: t("pos_opponent") }), h("option", { value: "player", text: t("pos_player") }));
  const resignOut = h("div", { class: "resign-out", "aria-live": "polite" });
  const resignBox = h("section", { class: "resignation panel", id: "pos-resignation" }, h("h3", {}, t("pos_resign_title")),
    h("div", {}, h("label", {}, t("pos_resign_level"), " ", resignLevel), " ", h("label", {}, t("pos_resigner"), " ", resigner), " ",
      h("button", { type: "button", id: "pos-judge", onclick: () => judgeResignation() }, t("pos_judge"))), resignOut);

  const trials = h("input", { type: "number", id: "ro-trials", min: 1, max: 100000, value: 144, class: "num-input" });
  const truncate = h("input", { type: "number", id: "ro-truncate", min: 0, max: 1000, value: 10, class: "num-input" });
  const topN = h("input", { type: "number", id: "ro-top", min: 1, max: 64, value: 3, class: "num-input" });
  const roStart = h("button", { type: "button", id: "ro-start", onclick: () => startRollout() }, t("pos_rollout_start"));
  const roCancel = h("button", { type: "button", id: "ro-cancel", hidden: true, onclick: () => cancelRollout() }, t("pos_rollout_cancel"));
  const roBar = h("progress", { id: "ro-progress", max: 1, value: 0, hidden: true });
  const roText = h("p", { id: "ro-text", "aria-live": "polite" });
  const roTable = h("div", { class: "ro-results", id: "ro-results" });
  const rolloutBox = h("section", { class: "rollout panel", id: "pos-rollout" }, h("h3", {}, t("pos_rollout")),
    h("div", { class: "ro-form" }, h("label", {}, t("pos_trials"), " ", trials), " ", h("label", {}, t("pos_truncate"), " ", truncate), " ",
      h("label", { class: "dice-only" }, t("pos_top"), " ", topN)),
    h("div", { class: "buttons" }, roStart, roCancel), roBar, roText, roTable);

  el.append(h("section", { class: "position-view" },
    h("h2", { class: "visually-hidden" }, t("pos_title")),
    h("form", { class: "id-form", onsubmit: (e) => { e.preventDefault(); loadId(idInput.value.trim()); } },
      h("label", { for: "pos-id" }, t("pos_id_label")), idInput, h("button", { type: "submit", id: "pos-show" }, t("pos_show"))),
    message,
    h("div", { class: "pos-layout" },
      h("div", { class: "board-col" }, boardHolder, pipsLine, idsLine, editor),
      h("div", { class: "side-col" }, settings, hintBox, cubeBox, resignBox, rolloutBox))));

  // ---- form <-> state
  function syncForm() {
    die1.value = s.dice ? s.dice[0] : ""; die2.value = s.dice ? s.dice[1] : "";
    variant.value = s.rules.variant; hs.checked = s.rules.hit_and_stop; mbo.checked = s.rules.must_bear_off;
    cubeValue.value = s.cube.value; cubeOwner.value = s.cube.owner; matchLen.value = s.cube.match_length;
    score1.value = s.cube.score; score2.value = s.cube.opponent_score; crawford.checked = s.cube.crawford;
    jacoby.checked = s.cube.jacoby; beaver.checked = s.cube.beaver; ply.value = s.ply;
    visibility();
  }
  function visibility() {
    const tavla = s.rules.variant === "tavla";
    tavlaOpts.hidden = !tavla; cubeFields.hidden = tavla;
    cubeFields.querySelector(".match-only").hidden = !s.cube.match_length;
    cubeFields.querySelector(".money-only").hidden = !!s.cube.match_length;
    resignBox.hidden = tavla || !!s.dice;
    cubeBox.hidden = !!s.dice && !tavla;
    rolloutBox.querySelector(".dice-only").hidden = !s.dice;
  }
  function readForm() {
    const d1 = +die1.value, d2 = +die2.value;
    s.dice = d1 && d2 ? [d1, d2] : null;
    s.rules = { variant: variant.value, hit_and_stop: variant.value === "tavla" && hs.checked, must_bear_off: variant.value === "tavla" && mbo.checked };
    s.cube = { value: +cubeValue.value, owner: cubeOwner.value, match_length: Math.max(0, Math.min(25, +matchLen.value || 0)),
               score: +score1.value || 0, opponent_score: +score2.value || 0, crawford: crawford.checked,
               jacoby: jacoby.checked, beaver: beaver.checked };
    s.ply = +ply.value;
  }
  for (const input of [die1, die2, variant, hs, mbo, cubeValue, cubeOwner, matchLen, score1, score2, crawford, jacoby, beaver, ply])
    input.addEventListener("change", () => { readForm(); visibility(); changed(); });

  function parseDice(text) {
    const m = /^([1-6])[-,]?([1-6])$/.exec(text || "");
    return m ? [+m[1], +m[2]] : null;
  }
  function diceSelect(n) {
    return h("select", { id: `pos-die${n}`, "aria-label": t("pos_die", { n }) },
      h("option", { value: "", text: t("pos_no_dice") }), [1, 2, 3, 4, 5, 6].map((v) => h("option", { value: v, text: v })));
  }
  function radio(name, value, label, checked, fn) {
    return h("label", {}, h("input", { type: "radio", name, value, checked, onchange: fn }), " ", label);
  }

  // ---- the board
  function currentBoard() {
    const b = boardFromPosition(s.mine, s.theirs);
    b.dice = s.dice;
    if (s.rules.variant !== "tavla") b.cube = { value: s.cube.value, owner: s.cube.owner === "player" ? "bottom" : s.cube.owner === "opponent" ? "top" : null };
    return b;
  }
  function redraw() {
    const b = currentBoard();
    const c = s.candidates[s.selected];
    drawBoard(boardHolder, b, {
      arrows: c ? arrowsOfNotation(c.notation) : [],
      onPoint: edit,
      onDrag: move,
      label: `${t("board_label")}: ${positionId(s.mine, s.theirs)}`,
    });
    pipsLine.textContent = t("pos_pips", { bottom: b.pips[0], top: b.pips[1] });
    idsLine.textContent = `Position ID: ${positionId(s.mine, s.theirs)}`;
  }
  function edit(point, event) {
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
      if (otherIdx != null && other[otherIdx]) return toast(t("pos_wrong_side"), "error");
      if (sum(own) >= 15) return toast(t("pos_full"), "error");
      own[idx]++;
    }
    s.candidates = [];
    redraw();
    changed();
    // keep the keyboard focus on the same point after the redraw
    boardHolder.querySelector(`.hit[data-point="${point}"]`)?.focus();
  }
  // drag a checker: from the side that has one there, to a point, the bar, or the tray (off the board: removed)
  function move(from, to) {
    if (from === 0) return;
    const at = (side, p) => (p === 25 ? 24 : side === "bottom" ? p - 1 : 24 - p);
    const side = s.mine[at("bottom", from)] ? "bottom" : s.theirs[at("top", from)] ? "top" : null;
    if (!side) return;
    const own = side === "bottom" ? s.mine : s.theirs;
    const other = side === "bottom" ? s.theirs : s.mine;
    if (to !== 0 && to !== 25 && other[at(side === "bottom" ? "top" : "bottom", to)]) {
      return toast(t("pos_wrong_side"), "error");
    }
    own[at(side, from)]--;
    if (to !== 0) own[at(side, to)]++;
    s.candidates = [];
    redraw();
    changed();
  }
  function setBoard(mine, theirs) {
    s.mine = mine; s.theirs = theirs; s.candidates = [];
    redraw(); changed();
  }

  // ---- address and analysis
  function address() {
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
  function changed() {
    address();
    clearTimeout(timer);
    timer = setTimeout(analyse, 200);
  }
  function body() {
    return { position: { mine: s.mine, theirs: s.theirs }, rules: s.rules };
  }
  function cubeBody() {
    return { ...s.cube, ...(s.cube.match_length ? { jacoby: false, beaver: false } : { score: 0, opponent_score: 0, crawford: false }) };
  }
  function cubeful() {
    return s.rules.variant !== "tavla" && (s.cube.match_length > 0 || s.cube.value > 1 || s.cube.owner !== "centre");
  }

  async function analyse() {
    const gen = ++generation;
    message.textContent = "";
    if (sum(s.mine) === 0 || sum(s.theirs) === 0) {
      hintBox.replaceChildren(); cubeBox.replaceChildren(); return;
    }
    if (s.dice) {
      cubeBox.replaceChildren();
      hintBox.hidden = false;
      hintBox.replaceChildren(h("h3", {}, t("pos_hint")), h("p", { class: "muted" }, t("loading")));
      try {
        const req = { ...body(), dice: s.dice, ply: s.ply, limit: 32 };
        if (cubeful()) req.cube = cubeBody();
        const r = await api("/v1/hint", { method: "POST", body: req });
        if (gen !== generation) return;
        s.candidates = r.candidates; s.legal = r.legal_plays; s.selected = 0;
        renderHint(); redraw();
      } catch (e) {
        if (gen !== generation) return;
        s.candidates = []; redraw();
        hintBox.replaceChildren(h("h3", {}, t("pos_hint")), h("p", { class: "error-message", role: "alert" }, problem(e)));
      }
    } else {
      hintBox.hidden = true;
      s.candidates = []; redraw();
      if (s.rules.variant === "tavla") {
        cubeBox.replaceChildren(h("p", { class: "muted" }, t("pos_cube_tavla")));
        return;
      }
      cubeBox.replaceChildren(h("h3", {}, t("pos_cube_title")), h("p", { class: "muted" }, t("loading")));
      try {
        const r = await api("/v1/cube-decision", { method: "POST", body: { ...body(), cube: cubeBody(), ply: Math.min(s.ply, 2) } });
        if (gen !== generation) return;
        renderCube(r);
      } catch (e) {
        if (gen !== generation) return;
        cubeBox.replaceChildren(h("h3", {}, t("pos_cube_title")), h("p", { class: "error-message", role: "alert" }, problem(e)));
      }
    }
  }

  function renderHint() {
    if (!s.candidates.length) {
      hintBox.replaceChildren(h("h3", {}, t("pos_hint")), h("p", {}, t("pos_no_legal")));
      return;
    }
    const rows = s.candidates.map((c, i) => h("tr", { class: i === s.selected ? "selected" : null, "data-index": i },
      h("td", {}, i + 1),
      h("td", {}, h("button", { type: "button", class: "play-button", "aria-pressed": i === s.selected ? "true" : "false",
        "aria-label": t("pos_select", { play: c.notation }), onclick: () => select(i) }, c.notation || "—")),
      h("td", { class: "num" }, fmt(c.equity)), h("td", { class: "num" }, i ? fmt(-c.loss) : ""),
      h("td", { class: "num" }, pct(c.probabilities.win)), h("td", { class: "num" }, pct(c.probabilities.win_gammon)),
      h("td", { class: "num" }, pct(c.probabilities.win_backgammon)), h("td", { class: "num" }, pct(c.probabilities.lose_gammon)),
      h("td", { class: "num" }, pct(c.probabilities.lose_backgammon))));
    hintBox.replaceChildren(h("h3", {}, t("pos_hint")),
      h("p", { class: "muted", id: "pos-count" }, t("pos_candidates", { n: s.candidates.length, total: s.legal }), ` · ${s.candidates[0].ply}-ply`),
      h("div", { class: "table-scroll" }, h("table", { class: "candidates" },
        h("thead", {}, h("tr", {}, ["#", t("pos_play"), t("pos_equity"), t("pos_loss"), t("pos_win"), t("pos_wg"), t("pos_wbg"), t("pos_lg"), t("pos_lbg")].map((x) => h("th", {}, x)))),
        h("tbody", {}, rows))));
  }
  function select(i) {
    s.selected = i;
    for (const tr of hintBox.querySelectorAll("tbody tr")) {
      const on = +tr.dataset.index === i;
      tr.classList.toggle("selected", on);
      tr.querySelector("button").setAttribute("aria-pressed", on ? "true" : "false");
    }
    redraw();
  }

  function renderCube(r) {
    const e = r.equities;
    const row = (label, v) => h("tr", {}, h("th", {}, label), h("td", { class: "num" }, v == null ? "—" : fmt(v)));
    const p = r.probabilities;
    cubeBox.replaceChildren(h("h3", {}, t("pos_cube_title")),
      h("p", { class: "cube-action", id: "cube-action" }, h("strong", {}, r.action)),
      h("table", { class: "cube-table" }, h("tbody", {},
        row(t("pos_nd"), e.no_double), row(t("pos_dt"), e.double_take), row(t("pos_dp"), e.double_pass))),
      h("p", { class: "muted" }, `${t("pos_win")} ${pct(p.win)}% · ${t("pos_wg")} ${pct(p.win_gammon)}% · ${t("pos_lg")} ${pct(p.lose_gammon)}%`,
        r.take_point != null ? ` · ${t("pos_take_point")} ${pct(r.take_point)}%` : "", ` · ${r.ply}-ply`),
      h("p", { class: "muted small-text" }, Object.entries(r.costs).map(([k, v]) => `${k}: ${fmt(-v)}`).join(" · ")),
      ...(r.notes.length ? [h("ul", {}, r.notes.map((n) => h("li", {}, n)))] : []));
  }

  async function judgeResignation() {
    resignOut.replaceChildren(h("p", { class: "muted" }, t("loading")));
    try {
      const r = await api("/v1/resignation", { method: "POST", body: { ...body(), cube: cubeBody(), resignation: resignLevel.value, resigner: resigner.value, ply: Math.min(s.ply, 2) } });
      const out = [];
      if (r.decision) {
        const d = r.decision;
        const who = d.resigner === "opponent" ? t("pos_the_player") : t("pos_the_opponent");
        out.push(h("p", { id: "resign-answer" }, t(d.accept ? "pos_accept" : "pos_reject", { who, value: fmt(d.value), play_on: fmt(d.play_on), cost: d.cost.toFixed(3) })));
      }
      out.push(h("p", { class: "muted" }, r.should_resign ? t("pos_should_resign", { level: t(`pos_${r.should_resign}`) }) : t("pos_should_not_resign")));
      resignOut.replaceChildren(...out);
    } catch (e) {
      resignOut.replaceChildren(h("p", { class: "error-message", role: "alert" }, problem(e)));
    }
  }

  // ---- rollouts
  async function startRollout() {
    if (rollout) return;
    const req = { ...body(), trials: Math.max(1, +trials.value || 144), ply: 0, seed: 1 };
    const cut = +truncate.value;
    if (cut > 0) req.truncate = cut;
    if (s.dice) {
      req.dice = s.dice;
      const plays = s.candidates.slice(0, Math.max(1, +topN.value || 3)).map((c) => c.notation).filter(Boolean);
      if (plays.length) req.plays = plays;
    }
    roText.textContent = t("loading");
    roTable.replaceChildren();
    let job;
    try {
      job = await api("/v1/rollouts", { method: "POST", body: req });
    } catch (e) {
      roText.replaceChildren(h("span", { class: "error-message", role: "alert" }, problem(e)));
      return;
    }
    const controller = new AbortController();
    rollout = { controller, id: job.id, started: performance.now(), scale: null, last: job };
    roStart.disabled = true; roCancel.hidden = false; roBar.hidden = false;
    showJob(job);
    try {
      await streamEvents(job.events, (name, data) => {
        if (!rollout || rollout.id !== job.id) return;
        rollout.last = data;
        showJob(data, name);
      }, { signal: controller.signal });
    } catch (e) {
      if (e.name !== "AbortError") roText.replaceChildren(h("span", { class: "error-message", role: "alert" }, problem(e)));
    } finally {
      if (rollout && rollout.id === job.id) endRollout();
    }
  }
  function endRollout() {
    rollout = null;
    roStart.disabled = false; roCancel.hidden = true;
  }
  async function cancelRollout() {
    if (!rollout) return;
    const r = rollout;
    try {
      await api(`/v1/rollouts/${r.id}`, { method: "DELETE" });
      roText.textContent = t("pos_rollout_cancelled");
    } catch (e) {
      toast(problem(e), "error");
    }
    r.controller.abort();
    endRollout();
  }
  function showJob(job, event = "progress") {
    const done = job.trials_done || 0, total = job.trials_total || 0;
    roBar.value = job.progress || 0;
    roBar.setAttribute("aria-valuenow", String(Math.round(100 * (job.progress || 0))));
    let eta = job.eta_s;
    if (eta == null && rollout && done > 0) {
      const elapsed = (performance.now() - rollout.started) / 1000;
      eta = (elapsed / done) * (total - done);
    }
    const parts = [t("pos_rollout_progress", { done, total })];
    if (event === "progress" && eta != null && done < total) parts.push(t("pos_eta", { s: Math.max(0, Math.round(eta)) }));
    if (event === "done") parts.push(t("pos_rollout_done"));
    else if (event === "cancelled") parts.push(t("pos_rollout_cancelled"));
    else if (event === "failed") parts.push(t("pos_rollout_failed", { error: job.error || "?" }));
    else parts.push(t("pos_state", { state: job.state }));
    roText.textContent = parts.join(" · ");
    roText.dataset.done = String(done);
    roText.dataset.state = event === "progress" ? job.state : event;
    const res = (job.result?.results || job.results || [])[0];
    if (!res) return;
    const rows = res.candidates ? res.candidates.map((c) => ({ name: c.play, ...c })) : [{ name: t("pos_position_itself"), ...res }];
    const have = rows.filter((r) => r.equity != null && r.se != null);
    if (have.length) {
      const lo = Math.min(...have.map((r) => r.equity - 1.96 * r.se)), hi = Math.max(...have.map((r) => r.equity + 1.96 * r.se));
      if (!rollout?.scale) { if (rollout) rollout.scale = [lo - 0.05 * (hi - lo + 0.01), hi + 0.05 * (hi - lo + 0.01)]; }
      else rollout.scale = [Math.min(rollout.scale[0], lo), Math.max(rollout.scale[1], hi)];
    }
    const scale = rollout?.scale || [-1, 1];
    const span = scale[1] - scale[0] || 1;
    roTable.replaceChildren(h("div", { class: "table-scroll" }, h("table", { class: "ro-table" },
      h("thead", {}, h("tr", {}, [t("pos_play"), t("pos_equity"), t("pos_ci"), ""].map((x) => h("th", {}, x)))),
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
      })))));
  }

  // ---- loading an ID
  async function loadId(text, { dice = null, keepSettings = false } = {}) {
    if (!text) return;
    message.textContent = "";
    try {
      const info = await api(`/v1/positions/${encodeURIComponent(text)}`);
      s.mine = info.board.mine; s.theirs = info.board.theirs;
      s.dice = dice || (info.dice && info.dice[0] ? info.dice : keepSettings ? s.dice : null);
      if (info.match && !keepSettings) {
        const m = info.match, me = m.turn, them = 1 - m.turn;
        s.cube = { ...s.cube, value: m.cube_value, owner: m.cube_owner == null ? "centre" : m.cube_owner === me ? "player" : "opponent",
                   match_length: m.match_length, score: m.score[me], opponent_score: m.score[them], crawford: m.crawford, jacoby: m.jacoby };
      }
      idInput.value = text;
      s.candidates = [];
      syncForm(); redraw(); changed();
    } catch (e) {
      message.textContent = problem(e);
    }
  }

  syncForm();
  redraw();
  if (params.position) {
    idInput.value = params.position;
    await loadId(params.position, { dice: s.dice, keepSettings: !!(params.ml || params.cube || params.owner) });
  } else {
    changed();
  }

  return () => {
    clearTimeout(timer);
    generation++;
    if (rollout) rollout.controller.abort();
    rollout = null;
  };
}
