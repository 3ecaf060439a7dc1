// The play view: a game or match against a bot through /v1/games. Address: /?view=play[&game=<id>].
// Moves by clicks on the board (a checker, then a highlighted target; legal targets come from the state's
// legal plays) or by the list of legal plays; a play is sent after a confirm step (undo before that).
import { api, ApiError } from "../api.js";
import { navigate, remember, toast } from "../shell.js";
import { t, addMessages } from "../i18n.js";
import { drawBoard, boardFromPosition, arrowsOfNotation } from "../board.js";
import { h } from "../ui.js";
import { extraOptions, clockLine } from "../play_options.js";

addMessages({
  en: {
    pl_new: "New game", pl_rules: "Rules", pl_international: "International", pl_tavla: "Tavla",
    pl_hit_and_stop: "hit and stop", pl_must_bear_off: "must bear off", pl_length: "Match to (0 = money)",
    pl_jacoby: "Jacoby", pl_beaver: "beavers", pl_raccoon: "raccoons", pl_level: "Bot", pl_style: "style",
    pl_easy: "easy", pl_medium: "medium", pl_hard: "hard", pl_master: "master",
    pl_balanced: "balanced", pl_aggressive: "aggressive", pl_cautious: "cautious", pl_runner: "runner",
    pl_trainer: "Trainer (a verdict on each decision)", pl_dice: "Dice", pl_server: "server (provably fair)",
    pl_client: "entered by me", pl_auto_forced: "play forced moves for me", pl_start: "Start",
    pl_you: "You", pl_bot: "pulvezar", pl_game: "Game {n}", pl_score: "Score: you {a} – {b} pulvezar",
    pl_match_to: "match to {n}", pl_money: "money session", pl_your_turn: "Your turn", pl_bots_turn: "pulvezar's turn",
    pl_roll: "Roll", pl_double: "Double", pl_take: "Take", pl_pass: "Pass", pl_beaver_a: "Beaver", pl_raccoon_a: "Raccoon",
    pl_resign: "Resign", pl_accept: "Accept", pl_reject: "Reject", pl_end: "End the session",
    pl_single: "single", pl_gammon: "gammon", pl_backgammon: "backgammon", pl_mars: "mars",
    pl_your_die: "your die", pl_bot_die: "pulvezar's die", pl_die: "die {n}", pl_bot_roll: "Enter pulvezar's roll:",
    pl_legal: "Legal plays ({n})", pl_pending: "Your play: {play}", pl_partial: "Moved so far: {play}",
    pl_running: "Your games in play", pl_resume: "{rules}, {n} points, {a}-{b}: go on", pl_analyse: "Analyse this game",
    pl_hint: "Hint", pl_hints_left: "{n} left", pl_check: "Check", pl_check_title: "Your play, checked",
    pl_warn: "Think again: you can undo and choose another play.", pl_hint_title: "The engine's best plays",
    pl_would_accept: "pulvezar would accept: {levels}", pl_would_refuse: "pulvezar would refuse a resignation now",
    pl_confirm: "Confirm", pl_undo: "Undo", pl_reset: "Start over", pl_no_move: "no move possible",
    pl_pick: "Click a checker, then a highlighted point (or choose a play below).",
    pl_pick_target: "Now click a highlighted point.", pl_one_left: "Only one play fits: {play}",
    pl_events: "What happened", pl_trainer_title: "Trainer", pl_best: "best: {play}", pl_loss: "loss {loss}",
    pl_mark_ok: "good", pl_mark_doubtful: "doubtful", pl_mark_blunder: "blunder",
    pl_finished: "The match is over: {who} won ({a} – {b}).", pl_finished_money: "The session ended ({a} – {b}).",
    pl_verify: "Verify the dice", pl_verified: "Verified: all {n} rolls come from the seed whose SHA-256 was committed at the start.",
    pl_not_verified: "NOT verified: the rolls do not match the committed seed!", pl_export: "Download .{fmt}",
    pl_commitment: "Dice commitment (SHA-256): {c}", pl_seed: "Seed: {s}", pl_resign_offer: "{who} offers to resign: {level}.",
    pl_cube_offered: "{who} doubled: the cube is offered at {v}.", pl_no_game: "No such game: {msg}",
    ev_opening: "Opening roll: you {a}, pulvezar {b}", ev_opening_you: "You start.", ev_opening_bot: "pulvezar starts.", pl_pips: "Pips: you {a} – {b} pulvezar", ev_opening_tie: "A tie: roll again.",
    ev_roll: "{who} rolled {a}-{b}.", ev_play: "{who} played {play}.", ev_play_auto: "{who} played {play} (forced).",
    ev_cannot: "{who} cannot move.", ev_double: "{who} doubled to {v}.", ev_beaver: "{who} beavered to {v}.",
    ev_raccoon: "{who} raccooned to {v}.", ev_take: "{who} took.", ev_drop: "{who} passed.",
    ev_resign: "{who} offered to resign: {level}.", ev_accept: "{who} accepted.", ev_reject: "{who} rejected.",
    ev_timeout: "{who} ran out of time.", ev_game_end: "{who} won the game: {points} point(s), {how}.",
    ev_game_start: "Game {game} starts (score {a} – {b}).", ev_finished: "The match is over.",
    pl_you_lc: "you", pl_replay: "Replay",
  },
  de: {
    pl_new: "Neues Spiel", pl_rules: "Regeln", pl_international: "International", pl_tavla: "Tavla",
    pl_hit_and_stop: "Schlagen und stehen", pl_must_bear_off: "Abtragen ist Pflicht", pl_length: "Match bis (0 = Geldspiel)",
    pl_jacoby: "Jacoby", pl_beaver: "Beaver", pl_raccoon: "Raccoon", pl_level: "Bot", pl_style: "Stil",
    pl_easy: "leicht", pl_medium: "mittel", pl_hard: "schwer", pl_master: "Meister",
    pl_balanced: "ausgewogen", pl_aggressive: "aggressiv", pl_cautious: "vorsichtig", pl_runner: "Läufer",
    pl_trainer: "Trainer (ein Urteil zu jeder Entscheidung)", pl_dice: "Würfel", pl_server: "Server (nachweislich fair)",
    pl_client: "von mir eingegeben", pl_auto_forced: "erzwungene Züge für mich ziehen", pl_start: "Starten",
    pl_you: "Sie", pl_bot: "pulvezar", pl_game: "Spiel {n}", pl_score: "Stand: Sie {a} – {b} pulvezar",
    pl_match_to: "Match bis {n}", pl_money: "Geldspiel", pl_your_turn: "Sie sind am Zug", pl_bots_turn: "pulvezar ist am Zug",
    pl_roll: "Würfeln", pl_double: "Doppeln", pl_take: "Annehmen", pl_pass: "Passen", pl_beaver_a: "Beaver", pl_raccoon_a: "Raccoon",
    pl_resign: "Aufgeben", pl_accept: "Annehmen", pl_reject: "Ablehnen", pl_end: "Sitzung beenden",
    pl_single: "einfach", pl_gammon: "Gammon", pl_backgammon: "Backgammon", pl_mars: "Mars",
    pl_your_die: "Ihr Würfel", pl_bot_die: "pulvezars Würfel", pl_die: "Würfel {n}", pl_bot_roll: "pulvezars Wurf eingeben:",
    pl_legal: "Legale Züge ({n})", pl_pending: "Ihr Zug: {play}", pl_partial: "Bisher gezogen: {play}",
    pl_running: "Deine laufenden Spiele", pl_resume: "{rules}, {n} Punkte, {a}-{b}: weiterspielen", pl_analyse: "Dieses Spiel analysieren",
    pl_hint: "Tipp", pl_hints_left: "noch {n}", pl_check: "Prüfen", pl_check_title: "Dein Zug, geprüft",
    pl_warn: "Überlege noch einmal: du kannst zurücknehmen und anders ziehen.", pl_hint_title: "Die besten Züge der Engine",
    pl_would_accept: "pulvezar würde annehmen: {levels}", pl_would_refuse: "pulvezar würde eine Aufgabe jetzt ablehnen",
    pl_confirm: "Bestätigen", pl_undo: "Rückgängig", pl_reset: "Neu beginnen", pl_no_move: "kein Zug möglich",
    pl_pick: "Einen Stein anklicken, dann einen markierten Punkt (oder unten einen Zug wählen).",
    pl_pick_target: "Jetzt einen markierten Punkt anklicken.", pl_one_left: "Nur ein Zug passt: {play}",
    pl_events: "Verlauf", pl_trainer_title: "Trainer", pl_best: "bester Zug: {play}", pl_loss: "Verlust {loss}",
    pl_mark_ok: "gut", pl_mark_doubtful: "zweifelhaft", pl_mark_blunder: "Patzer",
    pl_finished: "Das Match ist vorbei: {who} gewinnt ({a} – {b}).", pl_finished_money: "Die Sitzung ist beendet ({a} – {b}).",
    pl_verify: "Würfel prüfen", pl_verified: "Geprüft: alle {n} Würfe stammen aus dem Seed, dessen SHA-256 zu Beginn festgelegt wurde.",
    pl_not_verified: "NICHT bestätigt: die Würfe passen nicht zum festgelegten Seed!", pl_export: ".{fmt} herunterladen",
    pl_commitment: "Würfel-Commitment (SHA-256): {c}", pl_seed: "Seed: {s}", pl_resign_offer: "{who} bietet Aufgabe an: {level}.",
    pl_cube_offered: "{who} hat gedoppelt: der Würfel steht auf {v}.", pl_no_game: "Kein solches Spiel: {msg}",
    ev_opening: "Eröffnungswurf: Sie {a}, pulvezar {b}", ev_opening_you: "Sie beginnen.", ev_opening_bot: "pulvezar beginnt.", pl_pips: "Pips: Sie {a} – {b} pulvezar", ev_opening_tie: "Gleichstand: noch einmal würfeln.",
    ev_roll: "{who} würfelt {a}-{b}.", ev_play: "{who} zieht {play}.", ev_play_auto: "{who} zieht {play} (erzwungen).",
    ev_cannot: "{who} kann nicht ziehen.", ev_double: "{who} doppelt auf {v}.", ev_beaver: "{who} bibert auf {v}.",
    ev_raccoon: "{who} spielt Raccoon auf {v}.", ev_take: "{who} nimmt an.", ev_drop: "{who} passt.",
    ev_resign: "{who} bietet Aufgabe an: {level}.", ev_accept: "{who} nimmt an.", ev_reject: "{who} lehnt ab.",
    ev_timeout: "{who}: Zeit abgelaufen.", ev_game_end: "{who} gewinnt das Spiel: {points} Punkt(e), {how}.",
    ev_game_start: "Spiel {game} beginnt (Stand {a} – {b}).", ev_finished: "Das Match ist vorbei.",
    pl_you_lc: "Sie", pl_replay: "Wiedergabe",
  },
  tr: {
    pl_new: "Yeni oyun", pl_rules: "Kurallar", pl_international: "Uluslararası", pl_tavla: "Tavla",
    pl_hit_and_stop: "vuran durur", pl_must_bear_off: "toplamak zorunlu", pl_length: "Maç uzunluğu (0 = para oyunu)",
    pl_jacoby: "Jacoby", pl_beaver: "beaver", pl_raccoon: "raccoon", pl_level: "Bot", pl_style: "stil",
    pl_easy: "kolay", pl_medium: "orta", pl_hard: "zor", pl_master: "usta",
    pl_balanced: "dengeli", pl_aggressive: "saldırgan", pl_cautious: "temkinli", pl_runner: "kaçan",
    pl_trainer: "Eğitmen (her karara bir değerlendirme)", pl_dice: "Zarlar", pl_server: "sunucu (kanıtlanabilir adil)",
    pl_client: "benim girdiğim", pl_auto_forced: "zorunlu hamleleri benim yerime oyna", pl_start: "Başla",
    pl_you: "Siz", pl_bot: "pulvezar", pl_game: "Oyun {n}", pl_score: "Skor: siz {a} – {b} pulvezar",
    pl_match_to: "{n} sayılık maç", pl_money: "para oyunu", pl_your_turn: "Sıra sizde", pl_bots_turn: "Sıra pulvezar'da",
    pl_roll: "Zar at", pl_double: "Katla", pl_take: "Kabul", pl_pass: "Pas", pl_beaver_a: "Beaver", pl_raccoon_a: "Raccoon",
    pl_resign: "Pes et", pl_accept: "Kabul et", pl_reject: "Reddet", pl_end: "Oturumu bitir",
    pl_single: "tek", pl_gammon: "gammon", pl_backgammon: "backgammon", pl_mars: "mars",
    pl_your_die: "sizin zarınız", pl_bot_die: "pulvezar'ın zarı", pl_die: "zar {n}", pl_bot_roll: "pulvezar'ın zarını girin:",
    pl_legal: "Yasal hamleler ({n})", pl_pending: "Hamleniz: {play}", pl_partial: "Şimdiye kadar: {play}",
    pl_running: "Süren oyunların", pl_resume: "{rules}, {n} sayı, {a}-{b}: devam et", pl_analyse: "Bu oyunu analiz et",
    pl_hint: "İpucu", pl_hints_left: "{n} kaldı", pl_check: "Kontrol et", pl_check_title: "Hamlen, kontrol edildi",
    pl_warn: "Bir daha düşün: geri alıp başka bir hamle seçebilirsin.", pl_hint_title: "Motorun en iyi hamleleri",
    pl_would_accept: "pulvezar kabul ederdi: {levels}", pl_would_refuse: "pulvezar şimdi bir pes teklifini reddederdi",
    pl_confirm: "Onayla", pl_undo: "Geri al", pl_reset: "Baştan", pl_no_move: "hamle yok",
    pl_pick: "Bir pula, sonra işaretli bir haneye tıklayın (ya da aşağıdan bir hamle seçin).",
    pl_pick_target: "Şimdi işaretli bir haneye tıklayın.", pl_one_left: "Tek bir hamle uyuyor: {play}",
    pl_events: "Olanlar", pl_trainer_title: "Eğitmen", pl_best: "en iyisi: {play}", pl_loss: "kayıp {loss}",
    pl_mark_ok: "iyi", pl_mark_doubtful: "şüpheli", pl_mark_blunder: "büyük hata",
    pl_finished: "Maç bitti: {who} kazandı ({a} – {b}).", pl_finished_money: "Oturum bitti ({a} – {b}).",
    pl_verify: "Zarları doğrula", pl_verified: "Doğrulandı: {n} atışın hepsi, SHA-256'sı başta bildirilen tohumdan geliyor.",
    pl_not_verified: "DOĞRULANMADI: atışlar bildirilen tohuma uymuyor!", pl_export: ".{fmt} indir",
    pl_commitment: "Zar taahhüdü (SHA-256): {c}", pl_seed: "Tohum: {s}", pl_resign_offer: "{who} pes etmeyi teklif ediyor: {level}.",
    pl_cube_offered: "{who} katladı: küp {v} değerinde teklif edildi.", pl_no_game: "Böyle bir oyun yok: {msg}",
    ev_opening: "Başlangıç zarı: siz {a}, pulvezar {b}", ev_opening_you: "Siz başlıyorsunuz.", ev_opening_bot: "pulvezar başlıyor.", pl_pips: "Pip: siz {a} – {b} pulvezar", ev_opening_tie: "Beraberlik: tekrar atın.",
    ev_roll: "{who} {a}-{b} attı.", ev_play: "{who} {play} oynadı.", ev_play_auto: "{who} {play} oynadı (zorunlu).",
    ev_cannot: "{who} oynayamıyor.", ev_double: "{who} {v}'e katladı.", ev_beaver: "{who} {v}'e beaver dedi.",
    ev_raccoon: "{who} {v}'e raccoon dedi.", ev_take: "{who} kabul etti.", ev_drop: "{who} pas geçti.",
    ev_resign: "{who} pes etmeyi teklif etti: {level}.", ev_accept: "{who} kabul etti.", ev_reject: "{who} reddetti.",
    ev_timeout: "{who} süresini doldurdu.", ev_game_end: "{who} oyunu kazandı: {points} sayı, {how}.",
    ev_game_start: "{game}. oyun başlıyor (skor {a} – {b}).", ev_finished: "Maç bitti.",
    pl_you_lc: "siz", pl_replay: "Tekrar izle",
  },
});

const who = (p) => (p === 0 ? t("pl_you") : p === 1 ? t("pl_bot") : "—");
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
      g.root.append(h("p", { class: "error-message", role: "alert" }, t("pl_no_game", { msg: e.message })));
    }
  }
  if (g.game) render(g);
  else startForm(g);
  const onKey = (e) => keys(g, e);
  document.addEventListener("keydown", onKey);
  return () => { g.busy = true; document.removeEventListener("keydown", onKey); };
}

// ---- the start form
function startForm(g) {
  g.game = null;
  remember({ view: "play" });
  const sel = (id, values, prefix, value) => h("select", { id }, values.map((v) => h("option", { value: v, selected: v === value, text: t(`${prefix}${v}`) })));
  const variant = sel("pl-variant", ["international", "tavla"], "pl_", "tavla");
  const hs = h("input", { type: "checkbox", id: "pl-hs" });
  const mbo = h("input", { type: "checkbox", id: "pl-mbo" });
  const length = h("input", { type: "number", id: "pl-length", min: 0, max: 25, value: 1, class: "num-input" });
  const jacoby = h("input", { type: "checkbox", id: "pl-jacoby" });
  const beaver = h("input", { type: "checkbox", id: "pl-beaver" });
  const raccoon = h("input", { type: "checkbox", id: "pl-raccoon" });
  const level = sel("pl-level", ["easy", "medium", "hard", "master"], "pl_", "easy");
  const style = sel("pl-style", ["balanced", "aggressive", "cautious", "runner"], "pl_", "balanced");
  const trainer = h("input", { type: "checkbox", id: "pl-trainer" });
  const dice = sel("pl-dice", ["server", "client"], "pl_", "server");
  const autoForced = h("input", { type: "checkbox", id: "pl-auto" });
  const tavlaRow = h("div", { class: "row" }, h("label", {}, hs, " ", t("pl_hit_and_stop")), h("label", {}, mbo, " ", t("pl_must_bear_off")));
  const more = extraOptions();
  const moneyRow = h("div", { class: "row" }, h("label", {}, jacoby, " ", t("pl_jacoby")), h("label", {}, beaver, " ", t("pl_beaver")), h("label", {}, raccoon, " ", t("pl_raccoon")), more.autoLabel);
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
    h("h2", {}, t("pl_new")),
    h("div", { class: "row" }, h("label", {}, t("pl_rules"), " ", variant)), tavlaRow,
    h("div", { class: "row" }, h("label", {}, t("pl_length"), " ", length)), moneyRow,
    h("div", { class: "row" }, h("label", {}, t("pl_level"), " ", level), h("label", {}, t("pl_style"), " ", style)),
    h("div", { class: "row" }, h("label", {}, t("pl_dice"), " ", dice)),
    h("div", { class: "row" }, h("label", {}, trainer, " ", t("pl_trainer"))),
    h("div", { class: "row" }, h("label", {}, autoForced, " ", t("pl_auto_forced"))),
    ...more.rows,
    error,
    h("div", { class: "buttons" }, h("button", { type: "submit", id: "pl-start" }, t("pl_start"))));
  const running = h("section", { class: "panel", id: "pl-running" });
  g.root.replaceChildren(form, running);
  sync();
  runningGames(g, running);
}

/** The key's games still in play, each to go on with. */
async function runningGames(g, box) {
  try {
    const { games } = await api("/v1/games?status=playing&limit=20");
    if (!games.length) return;
    box.append(h("h3", {}, t("pl_running")), h("ul", {}, games.map((x) => h("li", {},
      h("button", { type: "button", class: "pl-resume", dataset: { game: x.id }, onclick: () => navigate({ view: "play", game: x.id }) },
        t("pl_resume", { rules: x.rules, n: x.match_length, a: (x.score || [0, 0])[0], b: (x.score || [0, 0])[1] }))))));
  } catch { /* no store behind this gateway: no list */ }
}

async function start(g, body, error) {
  error.textContent = "";
  try {
    g.game = await api("/v1/games", { method: "POST", body });
    g.log = [];
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
  try {
    const r = await api(`/v1/games/${g.game.id}/actions`, { method: "POST", body: action });
    g.log.push(...(r.events || []));
    g.game = r;
  } catch (e) {
    toast(e.message, "error");
    if (e instanceof ApiError && e.status === 409) {
      try { g.game = await api(`/v1/games/${g.game.id}`); } catch { /* keep the old state */ }
    }
  } finally {
    g.busy = false;
    g.root.removeAttribute("aria-busy");
    g.moves = null; g.selected = null; g.pending = null; g.hint = null; g.check = null;
    render(g);
  }
}

/** Help that makes no move: a hint (counted: the state comes back) or a check of the chosen play. */
async function help(g, action) {
  try {
    const r = await api(`/v1/games/${g.game.id}/actions`, { method: "POST", body: action });
    if (action.action === "hint") { g.log.push(...(r.events || [])); g.game = r; g.hint = r.hint; } else g.check = r.check;
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
  const id = { r: "pl-roll", c: "pl-confirm", u: "pl-undo", h: "pl-hint" }[e.key.toLowerCase()];
  const button = id && g.root.querySelector(`#${id}`);
  if (button && !button.disabled) { e.preventDefault(); button.click(); }
}

function render(g) {
  const game = g.game;
  remember({ view: "play", game: game.id });
  if (myMove(game) && !g.moves) g.moves = new MoveInput(game.board.checkers.human, game.board.checkers.bot, game.dice, game.legal_plays);
  if (!myMove(game)) g.moves = null;
  const { holder, board, current } = gameBoard(g);
  const side = sidePanels(g, current);
  g.root.replaceChildren(h("div", { class: "play-layout" },
    h("div", { class: "board-col" }, statusHead(game, board), holder),
    h("div", { class: "side-col" }, ...side)));
  const logEl = g.root.querySelector("#pl-events");
  if (logEl) logEl.scrollTop = logEl.scrollHeight;
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
    onDrag: input ? (from, to) => { g.selected = null; click(g, from); click(g, to); } : null, diceOn: game.turn === 1 ? "top" : "bottom",
    label: `${t("board_label")}: ${game.board.position_id}` });
  return { holder, board, current };
}

function statusHead(game, board) {
  const score = game.score || [0, 0];
  return h("div", { class: "status" },
    h("p", { class: "status-line", id: "pl-status" },
      `${t("pl_game", { n: game.game })} · ${t("pl_score", { a: score[0], b: score[1] })} · `,
      game.match_length ? t("pl_match_to", { n: game.match_length }) : t("pl_money"),
      game.crawford ? " · Crawford" : "",
      game.status === "playing" ? ` · ${game.to_act === 0 ? t("pl_your_turn") : t("pl_bots_turn")}` : "",
      game.settings?.free ? h("span", { class: "badge", id: "pl-free" }, t("po_free_badge")) : null),
    clockLine(game)?.el,
    h("p", { class: "muted" }, t("pl_pips", { a: board.pips[0], b: board.pips[1] })));
}

function sidePanels(g, current) {
  const game = g.game;
  const side = [];
  if (game.status === "finished") side.push(finishedPanel(g));
  else {
    if (game.resignation && game.resignation.player === 1)
      side.push(h("p", { class: "offer" }, t("pl_resign_offer", { who: who(1), level: t(`pl_${game.resignation.level}`) })));
    if (game.phase === "double" || game.actions.includes("take"))
      side.push(h("p", { class: "offer" }, t("pl_cube_offered", { who: who(game.turn), v: game.cube.value * 2 })));
    if (g.moves) side.push(movePanel(g, current));
    side.push(actionsPanel(g));
  }
  if (game.trainer) side.push(trainerPanel(game.trainer));
  side.push(h("section", { class: "panel" }, h("h3", {}, t("pl_events")),
    h("ol", { class: "event-log", id: "pl-events", "aria-live": "polite" }, g.log.slice(-60).map((e) => h("li", {}, eventText(e))))));
  side.push(h("div", { class: "buttons" }, h("button", { type: "button", id: "pl-new", onclick: () => startForm(g) }, t("pl_new"))));
  return side;
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
    parts.push(h("p", { class: "pending", id: "pl-pending" }, t("pl_pending", { play: current.notation || t("pl_no_move") })));
  } else {
    const left = moves.candidates();
    if (st.steps.length) parts.push(h("p", { class: "pending" }, t("pl_partial", { play: st.steps.map(([a, b]) => `${a === 25 ? "bar" : a}/${b || "off"}`).join(" ") })));
    parts.push(h("p", { class: "muted small-text" }, g.selected != null ? t("pl_pick_target") : t("pl_pick")));
    if (left.length === 1 && st.steps.length) current = left[0], parts.push(h("p", { class: "pending" }, t("pl_one_left", { play: left[0].notation })));
  }
  const buttons = h("div", { class: "buttons" });
  if (current) buttons.append(h("button", { type: "button", id: "pl-confirm", class: "primary", onclick: () => act(g, { action: "play", position_id: current.position_id }) }, t("pl_confirm")));
  if (current) buttons.append(h("button", { type: "button", id: "pl-check", onclick: () => help(g, { action: "check", position_id: current.position_id }) }, t("pl_check")));
  const left = g.game.hints_left;
  if (left !== 0) buttons.append(h("button", { type: "button", id: "pl-hint", onclick: () => help(g, { action: "hint" }) },
    t("pl_hint"), left != null ? ` (${t("pl_hints_left", { n: left })})` : ""));
  if (pending || st.steps.length) {
    buttons.append(h("button", { type: "button", id: "pl-undo", onclick: () => { if (g.pending) g.pending = null; else moves.undo(); g.selected = null; render(g); } }, t("pl_undo")));
    if (st.steps.length > 1) buttons.append(h("button", { type: "button", id: "pl-reset", onclick: () => { g.pending = null; moves.reset(); g.selected = null; render(g); } }, t("pl_reset")));
  }
  const legal = g.game.legal_plays;
  // a long list starts folded; once the player opens or folds it, it stays so across re-renders
  const list = h("details", { class: "legal", open: g.legalOpen ?? legal.length <= 24 },
    h("summary", { onclick: () => { g.legalOpen = !list.open; } }, t("pl_legal", { n: legal.length })),
    h("div", { class: "legal-plays", id: "pl-legal" }, legal.map((p) => h("button", {
      type: "button", class: "legal-play", "aria-pressed": pending === p ? "true" : "false",
      onclick: () => { moves.reset(); g.selected = null; g.pending = p; render(g); g.root.querySelector("#pl-confirm")?.focus(); },
    }, p.notation || t("pl_no_move")))));
  return h("section", { class: "panel move-panel" }, ...parts, buttons, helpPanels(g), list);
}

function helpPanels(g) {
  const out = h("div", { class: "help-panels" });
  if (g.check) {
    const v = g.check;
    out.append(h("div", { class: `verdict ${v.mark || "ok"}`, id: "pl-checked" }, h("strong", {}, t("pl_check_title")),
      ` · ${v.played}`, v.best !== v.played ? ` · ${t("pl_best", { play: v.best })}` : "", ` · ${t("pl_loss", { loss: v.loss.toFixed(3) })}`,
      v.warn ? h("p", { class: "error-message", id: "pl-warn" }, t("pl_warn")) : null, v.why ? h("p", {}, v.why) : null));
  }
  if (g.hint) {
    out.append(h("div", { id: "pl-hints" }, h("strong", {}, t("pl_hint_title")), h("ol", {}, g.hint.map((c) => h("li", {},
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
      const d1 = dieSelect(1, opening ? t("pl_your_die") : t("pl_die", { n: 1 }));
      const d2 = dieSelect(2, opening ? t("pl_bot_die") : t("pl_die", { n: 2 }));
      box.append(h("span", { class: "client-dice" }, game.to_act === 1 ? t("pl_bot_roll") + " " : "", d1, " ", d2, " ",
        h("button", { type: "button", id: "pl-roll", onclick: () => act(g, { action: "roll", dice: [+d1.value, +d2.value] }) }, t("pl_roll"))));
      continue;
    }
    if (a === "resign") {
      const levels = game.resign_levels || ["single"];
      const level = h("select", { id: "pl-resign-level", "aria-label": t("pl_resign") }, levels.map((l) => h("option", { value: l, text: t(`pl_${l}`) })));
      box.append(h("span", { class: "resign" }, h("button", { type: "button", id: "pl-resign", onclick: () => act(g, { action: "resign", level: level.value }) }, t("pl_resign")), " ", level));
      const preview = game.resign_preview;
      if (preview) {
        const yes = levels.filter((l) => preview[l]).map((l) => t(`pl_${l}`));
        box.append(h("p", { class: "muted small-text", id: "pl-resign-preview" }, yes.length ? t("pl_would_accept", { levels: yes.join(", ") }) : t("pl_would_refuse")));
      }
      continue;
    }
    const label = { beaver: "pl_beaver_a", raccoon: "pl_raccoon_a" }[a] || `pl_${a}`;
    box.append(h("button", { type: "button", id: `pl-${a}`, class: a === "roll" ? "primary" : null, onclick: () => act(g, { action: a }) }, t(label)));
  }
  return box;
}

function dieSelect(n, label) {
  return h("select", { id: `pl-die${n}`, "aria-label": label }, [1, 2, 3, 4, 5, 6].map((v) => h("option", { value: v, text: v })));
}

function trainerPanel(v) {
  const mark = v.mark || "ok";
  return h("section", { class: `panel verdict ${mark}`, id: "pl-trainer" }, h("h3", {}, t("pl_trainer_title")),
    h("p", {}, h("strong", {}, t(`pl_mark_${mark}`) || mark), v.played ? ` · ${v.played}` : "",
      v.best && v.best !== v.played ? ` · ${t("pl_best", { play: v.best })}` : "",
      v.loss != null ? ` · ${t("pl_loss", { loss: v.loss.toFixed(3) })}` : ""),
    v.why ? h("p", {}, v.why) : null);
}

function finishedPanel(g) {
  const game = g.game;
  const r = game.result || {};
  const score = r.score || game.score || [0, 0];
  const out = h("div", { class: "verify-out", id: "pl-verify-out", "aria-live": "polite" });
  const links = h("div", { class: "buttons", id: "pl-export" });
  const formats = game.settings?.rules?.variant === "tavla" ? ["mat", "txt"] : ["mat", "sgf", "txt"];
  for (const fmt of formats)
    links.append(h("button", { type: "button", id: `pl-export-${fmt}`, onclick: () => download(g.game, fmt, links) }, t("pl_export", { fmt })));
  const verify = h("button", { type: "button", id: "pl-verify", onclick: () => verifyDice(g.game, out) }, t("pl_verify"));
  return h("section", { class: "panel finished", id: "pl-finished" },
    h("p", { class: "status-line" }, r.winner == null ? t("pl_finished_money", { a: score[0], b: score[1] }) : t("pl_finished", { who: who(r.winner), a: score[0], b: score[1] })),
    game.dice_mode === "server" ? verify : null, out, links,
    h("div", { class: "buttons" }, h("button", { type: "button", id: "pl-analyse", onclick: () => analyse(g.game) }, t("pl_analyse")),
      h("button", { type: "button", id: "pl-replay", onclick: () => navigate({ view: "replay", game: g.game.id }) }, t("pl_replay"))));
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
    out.replaceChildren(h("p", { class: v.verified ? "ok" : "error-message", id: "pl-verified" }, v.verified ? t("pl_verified", { n: v.rolls }) : t("pl_not_verified")),
      h("p", { class: "muted" }, t("pl_commitment", { c: v.dice_commitment })), h("p", { class: "muted" }, t("pl_seed", { s: v.dice_seed })));
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
      const base = t("ev_opening", { a: d.dice?.[0], b: d.dice?.[1] });
      return `${base}. ${d.winner == null ? t("ev_opening_tie") : t(d.winner === 0 ? "ev_opening_you" : "ev_opening_bot")}`;
    }
    case "roll": return t("ev_roll", { who: w, a: d.dice?.[0], b: d.dice?.[1] });
    case "play":
      if (!d.notation) return t("ev_cannot", { who: w });
      return t(d.auto ? "ev_play_auto" : "ev_play", { who: w, play: d.notation }) + (d.verdict?.mark && d.verdict.mark !== "ok" ? ` (${t(`pl_mark_${d.verdict.mark}`)})` : "");
    case "double": case "beaver": case "raccoon": return t(`ev_${e.type}`, { who: w, v: d.cube });
    case "take": case "drop": case "accept": case "reject": case "timeout": return t(`ev_${e.type}`, { who: w });
    case "resign": return t("ev_resign", { who: w, level: t(`pl_${d.level}`) });
    case "game_end": return t("ev_game_end", { who: w, points: d.points, how: [d.how, d.outcome].filter(Boolean).join(", ") });
    case "game_start": return t("ev_game_start", { game: d.game, a: d.score?.[0], b: d.score?.[1] });
    case "finished": return t("ev_finished");
    default: return `${e.type} ${w}`;
  }
}
