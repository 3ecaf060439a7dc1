// The replay of a finished match (GET /v1/games/{id}/replay): every step on the board with its IDs, stepped by
// buttons, the arrow keys or the list, and "play from here" (POST /v1/games with start {game, step}): a free
// game from that step at the same score, cube and dice, against the replayed match's bot.
// Address: /?view=replay&game=<id>[&step=N].
import { api } from "../api.js";
import { navigate, remember, toast } from "../shell.js";
import { formatDate, t } from "../i18n.js";
import { drawBoard, boardFromPosition, arrowsOfNotation } from "../board.js";
import { h, decodePositionId, problemText } from "../ui.js";
import { saveToLibrary } from "../players.js";
import { rulesName } from "../names.js";


// The view's state: r = {controller, game, data, index, box, list}.
export async function mount(el, params) {
  const r = { controller: new AbortController(), game: params.game, index: Math.max(0, Number(params.step) || 0) };
  el.classList.add("rp-view");
  r.box = h("div", { class: "rp-box" });
  el.append(h("h1", {}, t("replay.title")), r.box);
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
  if (!games.length) { r.box.append(h("p", { class: "muted", id: "rp-none" }, t("replay.none"))); return; }
  r.box.append(h("ul", { class: "lb-list", id: "rp-games" }, games.map((x) => h("li", {},
    h("button", { type: "button", class: "rp-game", dataset: { game: x.id }, onclick: () => navigate({ view: "replay", game: x.id }) },
      t("replay.game", { rules: rulesName(x.rules), n: x.match_length, a: (x.score || [0, 0])[0], b: (x.score || [0, 0])[1], when: formatDate(x.updated) }))))));
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
  const who = t(s.player === 0 ? "replay.you" : "replay.bot");
  const what = s.action === "play" ? (s.notation ? t("replay.play", { d, p: s.notation }) : t("replay.cannot", { d }))
    : s.action === "roll" ? t("replay.roll", { d }) : s.action === "double" ? t("replay.double", { v: s.value }) : t(`replay.${s.action}`);
  return t("replay.fmt", { who, what });
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
    label: `${t("board.label")}: ${s.position_id}` });
  const gameSteps = steps.filter((x) => x.game === s.game);
  const here = h("button", { type: "button", id: "rp-play-here", class: "primary", disabled: !s.start, onclick: () => playFromHere(r, s, here) }, t("replay.here"));
  const list = h("ol", { class: "rp-steps", id: "rp-steps", "aria-label": t("replay.steps") }, gameSteps.map((x) => h("li", {},
    h("button", { type: "button", class: "rp-step", dataset: { step: x.step }, "aria-current": x.step === s.step ? "step" : "false",
      onclick: () => go(r, x.step) }, stepText(x)))));
  r.box.replaceChildren(h("div", { class: "play-layout" },
    h("div", { class: "board-col" },
      h("p", { class: "status-line", id: "rp-status" }, `${t("replay.step", { g: s.game, n: s.step + 1, of: steps.length })} · `,
        `${t("replay.score", { a: s.score[0], b: s.score[1] })}${r.data.rules !== "tavla" ? ` · ${t("replay.cube", { v: s.cube.value })}` : ""}`),
      holder,
      h("p", { class: "rp-what", id: "rp-what", "aria-live": "polite" }, stepText(s)),
      h("p", { class: "muted mono", id: "rp-ids" }, s.xgid || s.gnubg_id || s.position_id),
      h("div", { class: "buttons" },
        h("button", { type: "button", id: "rp-prev", disabled: r.index === 0, onclick: () => go(r, r.index - 1) }, `← ${t("replay.prev")}`),
        h("button", { type: "button", id: "rp-next", disabled: r.index === steps.length - 1, onclick: () => go(r, r.index + 1) }, `${t("replay.next")} →`),
        here,
        h("button", { type: "button", id: "rp-save", onclick: (e) => saveStep(r, s, e.currentTarget) }, t("library.save_position"))),
      s.start ? null : h("p", { class: "muted", id: "rp-no-start" }, t("replay.no_start"))),
    h("div", { class: "side-col" }, h("section", { class: "panel" }, h("h3", {}, t("replay.steps")), list))));
  const cur = r.box.querySelector(`.rp-step[data-step="${s.step}"]`);
  if (cur && typeof cur.scrollIntoView === "function") cur.scrollIntoView({ block: "nearest" });
}

/** The step's position saved in the library (POST /v1/library/positions) for the player of this browser. */
async function saveStep(r, s, button) {
  const body = { position: s.gnubg_id || s.xgid || s.position_id, rules: { variant: r.data.rules === "tavla" ? "tavla" : "international" },
    name: t("library.replay_name", { g: s.game, n: s.step + 1 }), tags: ["replay"] };
  if (s.dice && s.action === "play") body.dice = s.dice;
  await saveToLibrary(body, button);
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
