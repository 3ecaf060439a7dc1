// Training (the app manual's 5.12): the five lessons step by step (GET /v1/lessons, POST .../answers: a
// wrong play is refused) and the exercises (GET /v1/exercises/{kind}/next, POST .../answers), for the chosen
// player. Address: /?view=training[&player=<id>][&lesson=<id>].
import { api } from "../api.js";
import { remember } from "../shell.js";
import { t } from "../i18n.js";
import { drawBoard, boardFromPosition, arrowsOfNotation } from "../board.js";
import { playerView } from "../players.js";
import { h, decodePositionId, fmtNum, problemText } from "../ui.js";


const KINDS = [["pip-count", "training.pip_count"], ["bear-off", "training.bear_off"], ["take-point", "training.take_point"]];

// The view's state: s = {controller, el, player, body, lesson}.
export function mount(el, params) {
  const view = { cls: "tr-view", title: "training.title", bodyId: "tr-body", state: { lesson: params.lesson || null } };
  return playerView(el, params, view, lessons, (s) => (s.lesson ? openLesson(s, s.lesson) : lessons(s)));
}

function boardOf(positionId, dice, notation) {
  const box = h("div", { class: "tr-board", id: "tr-board" });
  const arrays = decodePositionId(positionId);
  const board = boardFromPosition(arrays.mine, arrays.theirs);
  board.dice = dice || null;
  drawBoard(box, board, { arrows: notation ? arrowsOfNotation(notation) : [], label: t("training.title") });
  return box;
}

// ---- lessons: the list, then one lesson step by step
async function lessons(s) {
  remember({ view: "training", player: s.player });
  const q = s.player ? `?player=${s.player}` : "";
  const { lessons: list } = await api(`/v1/lessons${q}`, { signal: s.controller.signal });
  const items = list.map((x) => h("li", { dataset: { id: x.id } },
    h("button", { type: "button", class: "tr-lesson", onclick: () => openLesson(s, x.id) }, x.title),
    x.progress?.completed ? h("span", { class: "muted tr-completed" }, ` · ${t("training.completed")}`) : null));
  const exercise = h("div", { class: "buttons", role: "group", "aria-label": t("training.exercises") },
    KINDS.map(([kind, key]) => h("button", { type: "button", class: "tr-kind", dataset: { kind }, onclick: () => nextExercise(s, kind) }, t(key))));
  s.body.replaceChildren(h("h2", {}, t("training.lessons")), h("ul", { class: "tr-lessons", id: "tr-lessons" }, items),
    h("h2", {}, t("training.exercises")), exercise, h("div", { id: "tr-exercise" }));
}

async function openLesson(s, id) {
  const q = s.player ? `?player=${s.player}` : "";
  const lesson = await api(`/v1/lessons/${id}${q}`, { signal: s.controller.signal });
  remember({ view: "training", player: s.player, lesson: id });
  step(s, lesson, 0);
}

function step(s, lesson, i) {
  const item = lesson.items[i];
  const url = `/v1/lessons/${lesson.id}/steps/${i}/answers`;
  const result = h("div", { id: "tr-result", "aria-live": "polite" });
  const next = h("button", { type: "button", id: "tr-next", hidden: item.kind !== "read" },
    i + 1 < lesson.items.length ? t("training.next") : t("training.done"));
  const advance = async (body) => {
    const r = await api(url, { method: "POST", body: { ...body, player: s.player || undefined } });
    if (!r.correct) { result.replaceChildren(h("p", { class: "error-message tr-refused" }, t("training.refused"))); return false; }
    return r;
  };
  next.addEventListener("click", async () => {
    if (item.kind === "read" && !(await advance({}))) return;
    if (i + 1 < lesson.items.length) step(s, lesson, i + 1);
    else { s.body.replaceChildren(h("p", { id: "tr-lesson-done" }, t("training.lesson_done"))); remember({ view: "training", player: s.player }); }
  });
  const parts = [h("h2", {}, lesson.title), h("p", { class: "muted", id: "tr-step" }, t("training.step", { i: i + 1, n: lesson.items.length })),
    h("p", { class: "tr-text" }, item.text)];
  if (item.kind !== "read") parts.push(boardOf(item.position, item.dice, null));
  if (item.kind === "play") parts.push(playChoices(item, async (notation) => {
    const r = await advance({ notation });
    if (r) { result.replaceChildren(h("p", { class: "tr-right" }, t("training.right"))); next.hidden = false; next.focus(); }
  }));
  if (item.kind === "pips") parts.push(pipsForm(async (pips) => {
    const r = await advance({ pips });
    if (r) { result.replaceChildren(h("p", { class: "tr-right" }, t("training.right"))); next.hidden = false; next.focus(); }
  }));
  s.body.replaceChildren(...parts, result, h("p", {}, next));
}

function playChoices(item, onPlay) {
  const box = h("div", { class: "legal-plays", id: "tr-plays" });
  api("/v1/legal-plays", { method: "POST", body: { position: item.position, dice: item.dice } }).then((r) => {
    box.replaceChildren(...r.plays.map((p) => h("button", { type: "button", onclick: () => onPlay(p.notation) }, p.notation)));
  }).catch((e) => box.replaceChildren(h("p", { class: "error-message" }, problemText(e))));
  return box;
}

function pipsForm(onAnswer) {
  const mine = h("input", { type: "number", id: "tr-pips-mine", min: 0, max: 375, required: true });
  const theirs = h("input", { type: "number", id: "tr-pips-theirs", min: 0, max: 375, required: true });
  const form = h("form", { class: "tr-pips" }, h("label", {}, t("training.yours"), " ", mine), " ",
    h("label", {}, t("training.theirs"), " ", theirs), " ", h("button", { type: "submit", id: "tr-pips-check" }, t("training.check")));
  form.addEventListener("submit", (e) => { e.preventDefault(); onAnswer([Number(mine.value), Number(theirs.value)]); });
  return form;
}

// ---- exercises: one at a time, the verdict and the player's streak
async function nextExercise(s, kind) {
  const q = new URLSearchParams(s.player ? { player: s.player } : {});
  const x = await api(`/v1/exercises/${kind}/next?${q}`, { signal: s.controller.signal });
  const box = s.body.querySelector("#tr-exercise");
  const result = h("div", { id: "tr-ex-result", "aria-live": "polite" });
  const answer = async (body) => {
    try {
      const r = await api(`/v1/exercises/${kind}/${x.id}/answers`, { method: "POST", body });
      const right = r.answer.play || (r.answer.pips && r.answer.pips.join(" / ")) || (r.answer.take_point != null && `${fmtNum(100 * r.answer.take_point, 1)} %`);
      const again = h("button", { type: "button", id: "tr-ex-next", onclick: () => nextExercise(s, kind) }, t("training.new"));
      result.replaceChildren(...[h("p", { class: r.correct ? "tr-right" : "error-message" }, r.correct ? t("training.right") : t("training.wrong", { answer: right })),
        r.counters ? h("p", { class: "muted", id: "tr-streak" }, t("training.streak", { s: r.counters.streak, c: r.counters.correct, n: r.counters.tried })) : null,
        h("p", {}, again)].filter(Boolean));
      if (kind === "bear-off" && r.answer.play) box.querySelector("#tr-board")?.replaceWith(boardOf(x.position_id, x.dice, r.answer.play));
    } catch (e) {
      result.replaceChildren(h("p", { class: "error-message", role: "alert" }, problemText(e)));
    }
  };
  const parts = [];
  if (kind === "pip-count") parts.push(h("p", { class: "tr-q" }, t("training.pip_q")), boardOf(x.position_id, null, null), pipsForm((pips) => answer({ pips })));
  if (kind === "bear-off") parts.push(h("p", { class: "tr-q" }, t("training.bear_q", { dice: `${x.dice[0]}-${x.dice[1]}` })), boardOf(x.position_id, x.dice, null),
    playChoices({ position: x.position_id, dice: x.dice }, (notation) => answer({ notation })));
  if (kind === "take-point") {
    const input = h("input", { type: "number", id: "tr-take", min: 0, max: 100, step: "0.1", required: true });
    const form = h("form", { class: "tr-take" }, h("label", {}, t("training.take_in"), " ", input), " ", h("button", { type: "submit", id: "tr-take-check" }, t("training.check")));
    form.addEventListener("submit", (e) => { e.preventDefault(); answer({ take_point: Number(input.value) / 100 }); });
    parts.push(h("p", { class: "tr-q" }, t("training.take_q", { length: x.match_length, a: x.score[0], b: x.score[1], cube: x.cube_value })), form);
  }
  box.replaceChildren(h("article", { class: "tr-exercise", dataset: { kind } }, ...parts, result));
}
