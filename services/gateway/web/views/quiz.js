// The opening quiz (GET /v1/opening-book/quiz?rules=, POST /v1/opening-book/quiz/answers): a random opening
// roll on the board, the book's candidates of that roll to choose from (by name, the best not marked), then
// the verdict, the book's best play drawn, the loss of the chosen play and, with a player chosen in this
// browser, the player's quiz counters (tried, right, streak, best streak). Address: /?view=quiz[&rules=tavla].
import { api } from "../api.js";
import { remember } from "../shell.js";
import { t } from "../i18n.js";
import { drawBoard, boardFromPosition, arrowsOfNotation } from "../board.js";
import { h, decodePositionId, fmtEq, problemText } from "../ui.js";
import { currentPlayer } from "../players.js";

const RULES = ["international", "tavla"];

// The view's state: q = {controller, rules, tabs, box, books}.
export function mount(el, params) {
  const q = { controller: new AbortController(), rules: RULES.includes(params.rules) ? params.rules : "international", books: {} };
  el.classList.add("qz-view");
  q.tabs = h("div", { class: "dy-tabs", role: "group", "aria-label": t("quiz.rules") },
    RULES.map((r) => h("button", { type: "button", dataset: { rules: r },
      onclick: () => { q.rules = r; next(q); } }, t(`quiz.${r}`))));
  q.box = h("section", { id: "qz-box", "aria-live": "polite" });
  el.append(h("h1", {}, t("quiz.title")), h("p", { class: "muted" }, t("quiz.intro")), q.tabs, q.box);
  next(q);
  return () => q.controller.abort();
}

/** A new question of the chosen rule set, with the book's candidates of its roll. */
async function next(q) {
  const { rules } = q;
  for (const b of q.tabs.querySelectorAll("button")) b.setAttribute("aria-pressed", String(b.dataset.rules === rules));
  remember({ view: "quiz", rules: rules === "international" ? null : rules });
  q.box.replaceChildren(h("p", { class: "muted" }, t("app.loading")));
  let question;
  try {
    q.books[rules] ||= await api(`/v1/opening-book?rules=${rules}`, { signal: q.controller.signal });
    question = await api(`/v1/opening-book/quiz?rules=${rules}`, { signal: q.controller.signal });
  } catch (e) {
    if (e.name !== "AbortError") q.box.replaceChildren(h("p", { class: "error-message", role: "alert" }, problemText(e)));
    return;
  }
  if (q.rules !== rules) return;
  const entry = (q.books[rules].rolls || []).find((r) => r.roll === question.roll || r.roll === [...question.roll].reverse().join(""));
  show(q, question, (entry?.candidates || []).map((c) => c.play).sort((a, b) => a.localeCompare(b)));
}

function show(q, question, plays) {
  const boardBox = h("div", { class: "dy-board", id: "qz-board" });
  const arrays = decodePositionId(question.position_id);
  const draw = (notation) => {
    const board = boardFromPosition(arrays.mine, arrays.theirs);
    board.dice = question.dice;
    drawBoard(boardBox, board, { arrows: notation ? arrowsOfNotation(notation) : [], label: t("quiz.title") });
  };
  draw(null);
  const dice = `${question.dice[0]}-${question.dice[1]}`;
  const fieldset = h("fieldset", { class: "dy-choices", id: "qz-choices" }, h("legend", { class: "muted" }, t("quiz.your_choice")),
    plays.map((play, i) => {
      const input = h("input", { type: "radio", name: "qz-choice", value: play, id: `qz-choice-${i}` });
      input.addEventListener("change", () => draw(play));
      return h("label", { for: `qz-choice-${i}`, dataset: { value: play } }, input, play);
    }));
  const check = h("button", { type: "submit", id: "qz-check" }, t("quiz.check"));
  const another = h("button", { type: "button", id: "qz-next" }, t("quiz.next"));
  another.addEventListener("click", () => next(q));
  const result = h("div", { class: "dy-result", id: "qz-result", "aria-live": "polite" });
  const form = h("form", { class: "dy-form" }, fieldset, h("div", { class: "dy-actions" }, check, another));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const chosen = fieldset.querySelector("input:checked")?.value;
    if (!chosen) { result.replaceChildren(h("p", { class: "error-message" }, t("quiz.choose"))); return; }
    check.disabled = true;
    answer(q, question, chosen).then((out) => {
      for (const input of fieldset.querySelectorAll("input")) input.disabled = true;
      for (const label of fieldset.querySelectorAll("label")) {
        label.classList.toggle("right", label.dataset.value === out.best);
        label.classList.toggle("wrong", label.dataset.value === chosen && !out.correct);
      }
      draw(out.best);
      result.replaceChildren(verdict(out), counters(out.counters));
      another.focus();
    }).catch((err) => {
      check.disabled = false;
      if (err.name !== "AbortError") result.replaceChildren(h("p", { class: "error-message", role: "alert" }, problemText(err)));
    });
  });
  q.box.replaceChildren(h("article", { class: "dy-card", dataset: { rules: question.rules, roll: question.roll } },
    h("div", {}, boardBox),
    h("div", {}, h("h2", {}, t("quiz.question", { dice })), form, result)));
}

function answer(q, question, notation) {
  const body = { rules: question.rules, roll: question.roll, notation };
  const player = currentPlayer();
  if (player) body.player = player;
  return api("/v1/opening-book/quiz/answers", { method: "POST", body, signal: q.controller.signal });
}

function verdict(out) {
  if (out.correct) return h("p", { class: "dy-verdict right", id: "qz-verdict" }, t("quiz.right"));
  const loss = out.loss == null ? "" : t("quiz.loss", { loss: fmtEq(out.loss) });
  return h("p", { class: "dy-verdict wrong", id: "qz-verdict" }, t("quiz.wrong", { best: out.best }), loss ? ` ${loss}` : "");
}

function counters(c) {
  if (!c) return h("p", { class: "muted", id: "qz-counters" }, t("quiz.no_player"));
  return h("p", { id: "qz-counters" }, t("quiz.counters", { correct: c.correct, tried: c.tried, streak: c.streak, best: c.best_streak }));
}
