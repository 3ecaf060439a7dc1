// A player's flash cards (GET /v1/players/{id}/cards, .../cards/due, POST .../cards/{card}/answers): the deck
// and a study round, one card at a time: the board, the choice (a play, or double and the opponent's answer),
// then the verdict, the loss, the right answer and when the card comes back. Address: /?view=cards[&player=].
import { api } from "../api.js";
import { remember } from "../shell.js";
import { t, addMessages } from "../i18n.js";
import { drawBoard, boardFromPosition, arrowsOfNotation } from "../board.js";
import { playerPicker } from "../players.js";
import { h, decodePositionId, fmtNum, problemText } from "../ui.js";

addMessages({
  en: {
    cd_title: "Cards", cd_deck: "{count} cards · {due} due today · {learned} learned", cd_next_due: "next due {date}",
    cd_empty: "No cards yet: a daily puzzle missed at the first attempt and each blunder of an analysed match become cards.",
    cd_start: "Study now", cd_card: "Card {i} of {n}", cd_play_q: "You are on roll with {dice}. What is the best play?",
    cd_cube_q: "You are on roll, before rolling. Double? And the opponent: take or pass?",
    cd_double: "Double", cd_no_double: "No double", cd_take: "Take", cd_pass: "Pass", cd_check: "Check",
    cd_right: "Right!", cd_wrong: "Not the best: {answer} (you lost {loss}).", cd_back: "Back on {date}.",
    cd_next: "Next card", cd_done: "Round done: {right} of {n} right.", cd_choose: "Choose an answer first.",
    cd_type: "Type: {k}",
  },
  de: {
    cd_title: "Karten", cd_deck: "{count} Karten · {due} heute fällig · {learned} gelernt", cd_next_due: "nächste am {date}",
    cd_empty: "Noch keine Karten: Eine im ersten Versuch verfehlte Stellung des Tages und jeder grobe Fehler eines analysierten Matches werden zu Karten.",
    cd_start: "Jetzt üben", cd_card: "Karte {i} von {n}", cd_play_q: "Du bist am Zug mit {dice}. Was ist der beste Zug?",
    cd_cube_q: "Du bist am Zug, vor dem Würfeln. Doppeln? Und der Gegner: annehmen oder ablehnen?",
    cd_double: "Doppeln", cd_no_double: "Nicht doppeln", cd_take: "Annehmen", cd_pass: "Ablehnen", cd_check: "Prüfen",
    cd_right: "Richtig!", cd_wrong: "Nicht der beste: {answer} (du hast {loss} verloren).", cd_back: "Wieder am {date}.",
    cd_next: "Nächste Karte", cd_done: "Runde beendet: {right} von {n} richtig.", cd_choose: "Bitte zuerst eine Antwort wählen.",
    cd_type: "Typ: {k}",
  },
  tr: {
    cd_title: "Kartlar", cd_deck: "{count} kart · bugün {due} kart · {learned} öğrenildi", cd_next_due: "sonraki {date}",
    cd_empty: "Henüz kart yok: ilk denemede çözülemeyen günün pozisyonu ve analiz edilen maçlardaki her büyük hata karta dönüşür.",
    cd_start: "Şimdi çalış", cd_card: "Kart {i} / {n}", cd_play_q: "Sıra sende, zarın {dice}. En iyi hamle hangisi?",
    cd_cube_q: "Sıra sende, zar atmadan önce. Katlar mısın? Rakip: kabul mü, pas mı?",
    cd_double: "Katla", cd_no_double: "Katlama", cd_take: "Kabul", cd_pass: "Pas", cd_check: "Kontrol et",
    cd_right: "Doğru!", cd_wrong: "En iyisi değil: {answer} ({loss} kaybettin).", cd_back: "{date} tarihinde tekrar.",
    cd_next: "Sonraki kart", cd_done: "Tur bitti: {n} karttan {right} doğru.", cd_choose: "Önce bir cevap seç.",
    cd_type: "Tür: {k}",
  },
});

// The view's state: c = {controller, player, body, cards, i, right}.
export async function mount(el, params) {
  const c = { controller: new AbortController(), body: h("div", { id: "cd-body", "aria-live": "polite" }) };
  el.classList.add("cd-view");
  el.append(h("h1", {}, t("cd_title")));
  try {
    const picker = await playerPicker(params.player, (id) => { c.player = id; deck(c); }, c.controller.signal);
    c.player = picker.id;
    el.append(picker.el, c.body);
  } catch (e) {
    if (e.name !== "AbortError") el.append(h("p", { class: "error-message", role: "alert" }, problemText(e)));
    return () => c.controller.abort();
  }
  deck(c);
  return () => c.controller.abort();
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
  if (!d.count) { c.body.replaceChildren(h("p", { class: "muted", id: "cd-empty" }, t("cd_empty"))); return; }
  const start = h("button", { type: "button", id: "cd-start" }, t("cd_start"));
  start.addEventListener("click", () => round(c));
  c.body.replaceChildren(h("p", { id: "cd-deck" }, t("cd_deck", { count: d.count, due: d.due_today, learned: d.learned }),
    d.next_due ? ` · ${t("cd_next_due", { date: d.next_due })}` : ""), h("p", {}, start));
}

async function round(c) {
  const { cards } = await api(`/v1/players/${c.player}/cards/due?limit=20`, { signal: c.controller.signal });
  Object.assign(c, { cards, i: 0, right: 0 });
  show(c);
}

function show(c) {
  if (c.i >= c.cards.length) {
    c.body.replaceChildren(h("p", { id: "cd-done" }, t("cd_done", { right: c.right, n: c.cards.length })));
    const again = h("button", { type: "button" }, t("cd_start"));
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
    drawBoard(boardBox, board, { arrows: notation ? arrowsOfNotation(notation) : [], label: t("cd_card", { i: c.i + 1, n: c.cards.length }) });
  };
  draw(null);
  const question = p.kind === "cube" ? t("cd_cube_q") : t("cd_play_q", { dice: `${p.dice[0]}-${p.dice[1]}` });
  const choices = p.kind === "cube" ? cubeChoices() : playChoices(p, draw);
  const result = h("div", { id: "cd-result", "aria-live": "polite" });
  const check = h("button", { type: "submit", id: "cd-check" }, t("cd_check"));
  const form = h("form", { class: "cd-form", dataset: { card: card.id, kind: p.kind } }, choices.el, h("p", {}, check), result);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const answer = choices.answer();
    if (!answer) { result.replaceChildren(h("p", { class: "error-message" }, t("cd_choose"))); return; }
    check.disabled = true;
    try {
      const r = await api(`/v1/players/${c.player}/cards/${card.id}/answers`, { method: "POST", body: answer });
      if (r.correct) c.right++;
      const right = r.answer.play || r.answer.action || "";
      if (p.kind !== "cube") draw(right);
      const next = h("button", { type: "button", id: "cd-next" }, t("cd_next"));
      next.addEventListener("click", () => { c.i++; show(c); });
      result.replaceChildren(...[
        h("p", { class: `cd-verdict ${r.correct ? "right" : "wrong"}` }, r.correct ? t("cd_right")
          : t("cd_wrong", { answer: right, loss: fmtNum(r.loss, 3) })),
        r.reason ? h("p", { class: "muted" }, r.reason) : null,
        h("p", { class: "muted", id: "cd-back" }, t("cd_back", { date: r.next_due })), h("p", {}, next)].filter(Boolean));
      next.focus();
    } catch (err) {
      check.disabled = false;
      result.replaceChildren(h("p", { class: "error-message", role: "alert" }, problemText(err)));
    }
  });
  const type = p.position_type?.kind;
  c.body.replaceChildren(h("article", { class: "cd-card" }, h("div", {}, boardBox),
    h("div", {}, h("h2", {}, t("cd_card", { i: c.i + 1, n: c.cards.length })), h("p", {}, question),
      type ? h("p", { class: "muted" }, t("cd_type", { k: type })) : null, form)));
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
  const double = group("cd-double", [["yes", "cd_double"], ["no", "cd_no_double"]]);
  const response = group("cd-response", [["take", "cd_take"], ["pass", "cd_pass"]]);
  const el = h("div", { id: "cd-choices" }, double, response);
  return { el, answer: () => {
    const d = double.querySelector("input:checked")?.value, r = response.querySelector("input:checked")?.value;
    return d && r ? { double: d === "yes", response: r } : null;
  } };
}
