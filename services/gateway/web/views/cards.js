// A player's flash cards (GET /v1/players/{id}/cards, .../cards/due, POST .../cards/{card}/answers): the deck
// and a study round, one card at a time: the board, the choice (a play, or double and the opponent's answer),
// then the verdict, the loss, the right answer and when the card comes back. Address: /?view=cards[&player=].
import { api } from "../api.js";
import { remember } from "../shell.js";
import { t } from "../i18n.js";
import { drawBoard, boardFromPosition, arrowsOfNotation } from "../board.js";
import { playerView } from "../players.js";
import { h, decodePositionId, fmtNum, problemText } from "../ui.js";


// The view's state: c = {controller, el, player, body, cards, i, right}.
export function mount(el, params) {
  return playerView(el, params, { cls: "cd-view", title: "cards.title", bodyId: "cd-body" }, deck);
}

async function deck(c) {
  remember({ view: "cards", player: c.player });
  if (!c.player) { c.body.replaceChildren(); return; }
  let d;
  try {
    d = await api(`/v1/players/${c.player}/cards`, { signal: c.controller.signal });
  } catch (e) {
    if (e.name !== "AbortError") c.body.replaceChildren(h("p", { class: "error-message", role: "alert" }, problemText(e)));
    return;
  }
  if (!d.count) { c.body.replaceChildren(h("p", { class: "muted", id: "cd-empty" }, t("cards.empty"))); return; }
  const start = h("button", { type: "button", id: "cd-start" }, t("cards.start"));
  start.addEventListener("click", () => round(c));
  c.body.replaceChildren(h("p", { id: "cd-deck" }, t("cards.deck", { count: d.count, due: d.due_today, learned: d.learned }),
    d.next_due ? ` · ${t("cards.next_due", { date: d.next_due })}` : ""), h("p", {}, start));
}

async function round(c) {
  const { cards } = await api(`/v1/players/${c.player}/cards/due?limit=20`, { signal: c.controller.signal });
  Object.assign(c, { cards, i: 0, right: 0 });
  show(c);
}

function show(c) {
  if (c.i >= c.cards.length) {
    c.body.replaceChildren(h("p", { id: "cd-done" }, t("cards.done", { right: c.right, n: c.cards.length })));
    const again = h("button", { type: "button" }, t("cards.start"));
    again.addEventListener("click", () => deck(c));
    c.body.append(h("p", {}, again));
    return;
  }
  const card = c.cards[c.i];
  const p = card.decision;
  const boardBox = h("div", { class: "cd-board", id: "cd-board" });
  const draw = (notation) => {
    const arrays = decodePositionId(p.position_id);
    const board = boardFromPosition(arrays.mine, arrays.theirs);
    board.dice = p.dice || null;
    if (p.kind === "cube") board.cube = { value: p.cube_value || 1, owner: null };
    drawBoard(boardBox, board, { arrows: notation ? arrowsOfNotation(notation) : [], label: t("cards.card", { i: c.i + 1, n: c.cards.length }) });
  };
  draw(null);
  const question = p.kind === "cube" ? t("cards.cube_q") : t("cards.play_q", { dice: `${p.dice[0]}-${p.dice[1]}` });
  const choices = p.kind === "cube" ? cubeChoices() : playChoices(p, draw);
  const result = h("div", { id: "cd-result", "aria-live": "polite" });
  const check = h("button", { type: "submit", id: "cd-check" }, t("cards.check"));
  const form = h("form", { class: "cd-form", dataset: { card: card.id, kind: p.kind } }, choices.el, h("p", {}, check), result);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const answer = choices.answer();
    if (!answer) { result.replaceChildren(h("p", { class: "error-message" }, t("cards.choose"))); return; }
    check.disabled = true;
    try {
      const r = await api(`/v1/players/${c.player}/cards/${card.id}/answers`, { method: "POST", body: answer });
      if (r.correct) c.right++;
      const right = r.answer.play || r.answer.action || "";
      if (p.kind !== "cube") draw(right);
      const next = h("button", { type: "button", id: "cd-next" }, t("cards.next"));
      next.addEventListener("click", () => { c.i++; show(c); });
      result.replaceChildren(...[
        h("p", { class: `cd-verdict ${r.correct ? "right" : "wrong"}` }, r.correct ? t("cards.right")
          : t("cards.wrong", { answer: right, loss: fmtNum(r.loss, 3) })),
        r.reason ? h("p", { class: "muted" }, r.reason) : null,
        h("p", { class: "muted", id: "cd-back" }, t("cards.back", { date: r.next_due })), h("p", {}, next)].filter(Boolean));
      next.focus();
    } catch (err) {
      check.disabled = false;
      result.replaceChildren(h("p", { class: "error-message", role: "alert" }, problemText(err)));
    }
  });
  const type = p.position_type?.kind;
  c.body.replaceChildren(h("article", { class: "cd-card" }, h("div", {}, boardBox),
    h("div", {}, h("h2", {}, t("cards.card", { i: c.i + 1, n: c.cards.length })), h("p", {}, question),
      type ? h("p", { class: "muted" }, t("cards.type", { k: type })) : null, form)));
}

function playChoices(p, draw) {
  const el = h("fieldset", { class: "cd-choices", id: "cd-choices" }, p.candidates.map((x, i) => {
    const input = h("input", { type: "radio", name: "cd-play", value: x.play, id: `cd-play-${i}` });
    input.addEventListener("change", () => draw(x.play));
    return h("label", { for: `cd-play-${i}` }, input, x.play);
  }));
  return { el, answer: () => { const v = el.querySelector("input:checked")?.value; return v ? { notation: v } : null; } };
}

function cubeChoices() {
  const group = (name, options) => h("fieldset", { class: "cd-choices" }, options.map(([value, key]) =>
    h("label", {}, h("input", { type: "radio", name, value }), t(key))));
  const double = group("cd-double", [["yes", "cards.double"], ["no", "cards.no_double"]]);
  const response = group("cd-response", [["take", "cards.take"], ["pass", "cards.pass"]]);
  const el = h("div", { id: "cd-choices" }, double, response);
  return { el, answer: () => {
    const d = double.querySelector("input:checked")?.value, r = response.querySelector("input:checked")?.value;
    return d && r ? { double: d === "yes", response: r } : null;
  } };
}
