// The replay of a finished match (GET /v1/games/{id}/replay): every step on the board with its IDs, stepped by
// buttons, the arrow keys or the list, and "play from here" (POST /v1/games with start {game, step}): a free
// game from that step at the same score, cube and dice, against the replayed match's bot.
// Address: /?view=replay&game=<id>[&step=N].
import { api } from "../api.js";
import { navigate, remember } from "../shell.js";
import { t, addMessages } from "../i18n.js";
import { drawBoard, boardFromPosition, arrowsOfNotation } from "../board.js";
import { h, decodePositionId, problemText } from "../ui.js";

addMessages({
  en: { rp_title: "Replay", rp_none: "No finished game to replay yet: play one first.", rp_prev: "Previous", rp_next: "Next",
        rp_here: "Play from here", rp_step: "Game {g} · step {n} of {of}", rp_score: "score {a} – {b}", rp_cube: "cube {v}",
        rp_you: "You", rp_bot: "pulvezar", rp_no_start: "No game starts here (an opening roll or a resignation).",
        rp_fmt: "{who} {what}", rp_roll: "rolled {d}", rp_play: "played {d}: {p}", rp_cannot: "could not move ({d})", rp_double: "doubled to {v}",
        rp_take: "took", rp_drop: "passed", rp_beaver: "beavered", rp_raccoon: "raccooned", rp_resign: "resigned", rp_accept: "accepted",
        rp_reject: "rejected",
        rp_steps: "Steps", rp_game: "{rules}, match to {n}: {a} – {b} ({when})" },
  de: { rp_title: "Wiedergabe", rp_none: "Noch kein beendetes Spiel zum Wiedergeben: spiele zuerst eines.", rp_prev: "Zurück", rp_next: "Weiter",
        rp_here: "Von hier spielen", rp_step: "Spiel {g} · Schritt {n} von {of}", rp_score: "Stand {a} – {b}", rp_cube: "Würfel {v}",
        rp_you: "Du", rp_bot: "pulvezar", rp_no_start: "Hier beginnt kein Spiel (ein Eröffnungswurf oder eine Aufgabe).",
        rp_fmt: "{who}: {what}", rp_roll: "Wurf {d}", rp_play: "Zug {d}: {p}", rp_cannot: "kein Zug möglich ({d})", rp_double: "Doppel auf {v}",
        rp_take: "angenommen", rp_drop: "abgegeben", rp_beaver: "Beaver", rp_raccoon: "Raccoon", rp_resign: "Aufgabe", rp_accept: "Aufgabe angenommen",
        rp_reject: "Aufgabe abgelehnt",
        rp_steps: "Schritte", rp_game: "{rules}, Match bis {n}: {a} – {b} ({when})" },
  tr: { rp_title: "Tekrar", rp_none: "Henüz tekrar izlenecek biten oyun yok: önce bir oyun oyna.", rp_prev: "Geri", rp_next: "İleri",
        rp_here: "Buradan oyna", rp_step: "Oyun {g} · adım {n} / {of}", rp_score: "skor {a} – {b}", rp_cube: "küp {v}",
        rp_you: "Sen", rp_bot: "pulvezar", rp_no_start: "Burada oyun başlamaz (açılış zarı veya pes etme).",
        rp_fmt: "{who}: {what}", rp_roll: "zar {d}", rp_play: "hamle {d}: {p}", rp_cannot: "oynanamadı ({d})", rp_double: "{v} katına çıkarma",
        rp_take: "kabul", rp_drop: "ret", rp_beaver: "beaver", rp_raccoon: "raccoon", rp_resign: "pes etme", rp_accept: "pes etme kabul",
        rp_reject: "pes etme ret",
        rp_steps: "Adımlar", rp_game: "{rules}, {n} sayılık maç: {a} – {b} ({when})" },
});

// The view's state: r = {controller, game, data, index, box, list}.
export async function mount(el, params) {
  const r = { controller: new AbortController(), game: params.game, index: Math.max(0, Number(params.step) || 0) };
  el.classList.add("rp-view");
  r.box = h("div", { class: "rp-box" });
  el.append(h("h1", {}, t("rp_title")), r.box);
  if (!r.game) { finishedGames(r); return () => r.controller.abort(); }
  try {
    r.data = await api(`/v1/games/${encodeURIComponent(r.game)}/replay`, { signal: r.controller.signal });
  } catch (e) {
    if (e.name !== "AbortError") r.box.replaceChildren(h("p", { class: "error-message", role: "alert" }, problemText(e)));
    return () => {};
  }
  r.index = Math.min(r.index, r.data.steps.length - 1);
  const onKey = (e) => {
    if (["INPUT", "SELECT", "TEXTAREA"].includes(e.target?.tagName)) return;
    if (e.key === "ArrowLeft") { e.preventDefault(); go(r, r.index - 1); }
    if (e.key === "ArrowRight") { e.preventDefault(); go(r, r.index + 1); }
  };
  document.addEventListener("keydown", onKey);
  show(r);
  return () => { r.controller.abort(); document.removeEventListener("keydown", onKey); };
}

/** Without a game: the key's finished games, each to replay. */
async function finishedGames(r) {
  let games = [];
  try {
    ({ games } = await api("/v1/games?status=finished&limit=30", { signal: r.controller.signal }));
  } catch (e) {
    if (e.name !== "AbortError") r.box.append(h("p", { class: "error-message", role: "alert" }, problemText(e)));
    return;
  }
  if (!games.length) { r.box.append(h("p", { class: "muted", id: "rp-none" }, t("rp_none"))); return; }
  r.box.append(h("ul", { class: "lb-list", id: "rp-games" }, games.map((x) => h("li", {},
    h("button", { type: "button", class: "rp-game", dataset: { game: x.id }, onclick: () => navigate({ view: "replay", game: x.id }) },
      t("rp_game", { rules: x.rules, n: x.match_length, a: (x.score || [0, 0])[0], b: (x.score || [0, 0])[1], when: new Date(x.updated * 1000).toLocaleString() }))))));
}

function go(r, index) {
  if (index < 0 || index >= r.data.steps.length || index === r.index) return;
  r.index = index;
  show(r);
  r.box.querySelector(`.rp-step[data-step="${index}"]`)?.focus();
}

/** What a step does, in words. */
export function stepText(s) {
  const d = s.dice ? `${s.dice[0]}${s.dice[1]}` : "";
  const who = t(s.player === 0 ? "rp_you" : "rp_bot");
  const what = s.action === "play" ? (s.notation ? t("rp_play", { d, p: s.notation }) : t("rp_cannot", { d }))
    : s.action === "roll" ? t("rp_roll", { d }) : s.action === "double" ? t("rp_double", { v: s.value }) : t(`rp_${s.action}`);
  return t("rp_fmt", { who, what });
}

function show(r) {
  const steps = r.data.steps;
  const s = steps[r.index];
  remember({ view: "replay", game: r.game, step: r.index || null });
  const { mine, theirs } = decodePositionId(s.position_id);
  // the step's board is seen from the side to act (the roller, or the doubler); you are drawn at the bottom
  const board = boardFromPosition(mine, theirs, { onRollIsBottom: s.side === "on_roll" });
  if (s.action === "play") board.dice = s.dice;
  if (r.data.rules !== "tavla") board.cube = { value: s.cube.value, owner: s.cube.owner === 0 ? "bottom" : s.cube.owner === 1 ? "top" : null };
  const holder = h("div", { class: "board-holder", id: "rp-board" });
  const flip = (x) => (x === 0 || x === 25 ? x : 25 - x); // the bot's points in your numbering
  const arrows = s.action !== "play" ? [] : arrowsOfNotation(s.notation).map(([a, b]) => (s.side === "on_roll" ? [a, b] : [flip(a), flip(b)]));
  drawBoard(holder, board, { arrows, diceOn: s.side === "on_roll" ? "bottom" : "top",
    label: `${t("board_label")}: ${s.position_id}` });
  const gameSteps = steps.filter((x) => x.game === s.game);
  const here = h("button", { type: "button", id: "rp-play-here", class: "primary", disabled: !s.start, onclick: () => playFromHere(r, s, here) }, t("rp_here"));
  const list = h("ol", { class: "rp-steps", id: "rp-steps", "aria-label": t("rp_steps") }, gameSteps.map((x) => h("li", {},
    h("button", { type: "button", class: "rp-step", dataset: { step: x.step }, "aria-current": x.step === s.step ? "step" : "false",
      onclick: () => go(r, x.step) }, stepText(x)))));
  r.box.replaceChildren(h("div", { class: "play-layout" },
    h("div", { class: "board-col" },
      h("p", { class: "status-line", id: "rp-status" }, `${t("rp_step", { g: s.game, n: s.step + 1, of: steps.length })} · `,
        `${t("rp_score", { a: s.score[0], b: s.score[1] })}${r.data.rules !== "tavla" ? ` · ${t("rp_cube", { v: s.cube.value })}` : ""}`),
      holder,
      h("p", { class: "rp-what", id: "rp-what", "aria-live": "polite" }, stepText(s)),
      h("p", { class: "muted mono", id: "rp-ids" }, s.xgid || s.gnubg_id || s.position_id),
      h("div", { class: "buttons" },
        h("button", { type: "button", id: "rp-prev", disabled: r.index === 0, onclick: () => go(r, r.index - 1) }, `← ${t("rp_prev")}`),
        h("button", { type: "button", id: "rp-next", disabled: r.index === steps.length - 1, onclick: () => go(r, r.index + 1) }, `${t("rp_next")} →`),
        here),
      s.start ? null : h("p", { class: "muted", id: "rp-no-start" }, t("rp_no_start"))),
    h("div", { class: "side-col" }, h("section", { class: "panel" }, h("h3", {}, t("rp_steps")), list))));
  const cur = r.box.querySelector(`.rp-step[data-step="${s.step}"]`);
  if (cur && typeof cur.scrollIntoView === "function") cur.scrollIntoView({ block: "nearest" });
}

async function playFromHere(r, s, button) {
  button.disabled = true;
  try {
    const game = await api("/v1/games", { method: "POST", body: { start: { game: r.game, step: s.step } } });
    navigate({ view: "play", game: game.id });
  } catch (e) {
    button.disabled = false;
    r.box.querySelector("#rp-what")?.after(h("p", { class: "error-message", role: "alert" }, problemText(e)));
  }
}
