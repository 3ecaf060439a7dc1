// The daily puzzles (GET /v1/daily/today or /v1/daily/{date}, ?rules=international|tavla&kind=position|cube):
// the board, the user's choice (a play or a cube action), then the answer, its reason (en/de/tr) and the
// candidates. A puzzle not produced yet (404) is a readable message. Address: /?view=daily[&rules][&kind][&date].
import { api, ApiError } from "../api.js";
import { remember } from "../shell.js";
import { t, addMessages, lang } from "../i18n.js";
import { drawBoard, boardFromPosition, arrowsOfNotation } from "../board.js";
import { h, decodePositionId, fmtEq, fmtPct, problemText } from "../ui.js";

addMessages({
  en: {
    dy_title: "Daily puzzle", dy_intl_position: "Position (international)", dy_tavla_position: "Position (Tavla)",
    dy_intl_cube: "Cube decision", dy_date: "Date", dy_today: "Today",
    dy_missing: "The daily {what} for {date} has not been produced yet. The workers make each day's puzzles a few times a day; come back later, or pick an earlier date.",
    dy_what_position: "position", dy_what_cube: "cube decision",
    dy_position_q: "{date}: you are on roll with {dice}. What is the best play?",
    dy_cube_q: "{date}: you are on roll, before rolling. Double? And if you double, should the opponent take?",
    dy_score: "Score {a}–{b} in a {n}-point match (yours first)", dy_money: "Single game (cubeless)",
    dy_check: "Check", dy_reveal: "Show the answer", dy_right: "Right!", dy_wrong: "Not quite: the best is {a}.",
    dy_answer: "Answer: {a}", dy_choose: "Choose an answer first.", dy_play: "Play", dy_equity: "Equity",
    dy_loss: "Loss", dy_win: "Win", dy_action: "Action", dy_plan: "Plan: {p}", dy_type: "Type: {k}",
    dy_nd: "No double", dy_dt: "Double, take", dy_dp: "Double, pass", dy_fallback: "(no candidate met every rule: the clearest one was taken)",
    dy_your_choice: "Your answer",
  },
  de: {
    dy_title: "Rätsel des Tages", dy_intl_position: "Stellung (international)", dy_tavla_position: "Stellung (Tavla)",
    dy_intl_cube: "Dopplerentscheidung", dy_date: "Datum", dy_today: "Heute",
    dy_missing: "Das Rätsel ({what}) für {date} wurde noch nicht erstellt. Die Worker erstellen die Rätsel eines Tages mehrmals täglich; schauen Sie später wieder vorbei oder wählen Sie ein früheres Datum.",
    dy_what_position: "Stellung", dy_what_cube: "Dopplerentscheidung",
    dy_position_q: "{date}: Sie sind am Zug mit {dice}. Was ist der beste Zug?",
    dy_cube_q: "{date}: Sie sind am Zug, vor dem Würfeln. Doppeln? Und wenn ja: sollte der Gegner annehmen?",
    dy_score: "Stand {a}–{b} in einem Match auf {n} Punkte (Ihrer zuerst)", dy_money: "Einzelspiel (ohne Doppler)",
    dy_check: "Prüfen", dy_reveal: "Lösung zeigen", dy_right: "Richtig!", dy_wrong: "Nicht ganz: am besten ist {a}.",
    dy_answer: "Lösung: {a}", dy_choose: "Bitte zuerst eine Antwort wählen.", dy_play: "Zug", dy_equity: "Equity",
    dy_loss: "Verlust", dy_win: "Sieg", dy_action: "Aktion", dy_plan: "Plan: {p}", dy_type: "Typ: {k}",
    dy_nd: "Nicht doppeln", dy_dt: "Doppeln, annehmen", dy_dp: "Doppeln, ablehnen", dy_fallback: "(kein Kandidat erfüllte alle Regeln: der klarste wurde genommen)",
    dy_your_choice: "Ihre Antwort",
  },
  tr: {
    dy_title: "Günün bulmacası", dy_intl_position: "Pozisyon (uluslararası)", dy_tavla_position: "Pozisyon (Tavla)",
    dy_intl_cube: "Küp kararı", dy_date: "Tarih", dy_today: "Bugün",
    dy_missing: "{date} tarihli günlük {what} henüz hazırlanmadı. Sunucular her günün bulmacalarını gün içinde birkaç kez hazırlar; daha sonra tekrar bakın ya da daha önceki bir tarih seçin.",
    dy_what_position: "pozisyon", dy_what_cube: "küp kararı",
    dy_position_q: "{date}: sıra sizde, zarınız {dice}. En iyi hamle hangisi?",
    dy_cube_q: "{date}: sıra sizde, zar atmadan önce. Katlamalı mı? Katlarsanız rakip kabul etmeli mi?",
    dy_score: "{n} sayılık maçta skor {a}–{b} (önce sizinki)", dy_money: "Tek oyun (küpsüz)",
    dy_check: "Kontrol et", dy_reveal: "Cevabı göster", dy_right: "Doğru!", dy_wrong: "Tam değil: en iyisi {a}.",
    dy_answer: "Cevap: {a}", dy_choose: "Önce bir cevap seçin.", dy_play: "Hamle", dy_equity: "Equity",
    dy_loss: "Kayıp", dy_win: "Kazanma", dy_action: "Karar", dy_plan: "Plan: {p}", dy_type: "Tür: {k}",
    dy_nd: "Katlamamak", dy_dt: "Katla, kabul", dy_dp: "Katla, pas", dy_fallback: "(hiçbir aday tüm kurallara uymadı: en net olanı seçildi)",
    dy_your_choice: "Cevabınız",
  },
});

const TABS = [
  { key: "dy_intl_position", rules: "international", kind: "position" },
  { key: "dy_tavla_position", rules: "tavla", kind: "position" },
  { key: "dy_intl_cube", rules: "international", kind: "cube" },
];
const CUBE_CHOICES = [["no double", "dy_nd"], ["double/take", "dy_dt"], ["double/pass", "dy_dp"]];

function cubeAnswer(answer) {
  if (!answer.double) return "no double";
  return answer.response === "pass" ? "double/pass" : "double/take";
}

// The view's state: d = {controller, rules, kind, date, tabs, dateInput, box}.
export async function mount(el, params) {
  const rules = params.rules === "tavla" ? "tavla" : "international";
  const d = { controller: new AbortController(), rules, kind: params.kind === "cube" && rules === "international" ? "cube" : "position",
              date: /^\d{4}-\d{2}-\d{2}$/.test(params.date || "") ? params.date : null };
  el.classList.add("dy-view");
  d.tabs = h("div", { class: "dy-tabs", role: "group", "aria-label": t("dy_title") },
    TABS.map((tab) => h("button", { type: "button", dataset: { rules: tab.rules, kind: tab.kind },
      onclick: () => { d.rules = tab.rules; d.kind = tab.kind; load(d); } }, t(tab.key))));
  const dateInput = h("input", { type: "date", id: "dy-date", value: d.date || "" });
  const todayButton = h("button", { type: "button", id: "dy-today" }, t("dy_today"));
  dateInput.addEventListener("change", () => { d.date = dateInput.value || null; load(d); });
  todayButton.addEventListener("click", () => { d.date = null; dateInput.value = ""; load(d); });
  d.box = h("section", { id: "dy-box", "aria-live": "polite" });
  el.append(h("h1", {}, t("dy_title")), d.tabs,
    h("p", { class: "dy-date" }, h("label", { for: "dy-date" }, t("dy_date")), " ", dateInput, " ", todayButton), d.box);
  load(d);
  return () => d.controller.abort();
}

// ---- the puzzle of the chosen day, rule set and kind (or why there is none)
async function load(d) {
  const { rules, kind, date, box } = d;
  for (const b of d.tabs.querySelectorAll("button"))
    b.setAttribute("aria-pressed", String(b.dataset.rules === rules && b.dataset.kind === kind));
  remember({ view: "daily", rules: rules === "international" ? null : rules, kind: kind === "position" ? null : kind, date });
  box.replaceChildren(h("p", { class: "muted" }, t("loading")));
  const path = `/v1/daily/${date || "today"}?rules=${rules}&kind=${kind}`;
  let puzzle;
  try {
    puzzle = await api(path, { signal: d.controller.signal });
  } catch (e) {
    if (e.name === "AbortError") return;
    if (e instanceof ApiError && e.status === 404) {
      const day = date || new Date().toISOString().slice(0, 10);
      box.replaceChildren(h("p", { class: "dy-missing", id: "dy-missing" },
        t("dy_missing", { what: t(`dy_what_${kind}`), date: day })));
    } else {
      box.replaceChildren(h("p", { class: "error-message", role: "alert" }, problemText(e)));
    }
    return;
  }
  show(d, puzzle);
}

// ---- the puzzle: its board, the question, the choices, and the answer
function show(d, p) {
  const { boardBox, draw } = puzzleBoard(p);
  draw(null);
  const dice = p.dice ? `${p.dice[0]}-${p.dice[1]}` : "";
  const question = p.kind === "cube" ? t("dy_cube_q", { date: p.date }) : t("dy_position_q", { date: p.date, dice });
  const facts = h("p", { class: "muted" }, p.match_length
    ? t("dy_score", { a: p.score[0], b: p.score[1], n: p.match_length }) : t("dy_money"));
  const form = choiceForm(p, draw);
  const type = p.position_type || {};
  d.box.replaceChildren(h("article", { class: "dy-card", dataset: { kind: p.kind, rules: p.rules } },
    h("div", {}, boardBox),
    h("div", {}, h("h2", {}, question), facts,
      type.plan ? h("p", { class: "muted" }, t("dy_plan", { p: type.plan })) : null,
      form.form, form.result)));
}

/** The puzzle's board; draw(notation) shows a play's arrows on it (null: none). */
function puzzleBoard(p) {
  const arrays = decodePositionId(p.position_id);
  const boardBox = h("div", { class: "dy-board", id: "dy-board" });
  const draw = (notation) => {
    const board = boardFromPosition(arrays.mine, arrays.theirs);
    board.dice = p.dice || null;
    if (p.kind === "cube" || p.match_length) {
      const owner = p.cube_owner === "centre" || !p.cube_owner ? null : p.cube_owner === "opponent" ? "top" : "bottom";
      board.cube = { value: p.cube_value || 1, owner };
    }
    drawBoard(boardBox, board, { arrows: notation ? arrowsOfNotation(notation) : [], label: `${t("dy_title")} ${p.date}` });
  };
  return { boardBox, draw };
}

/** The choices (plays or cube actions), check and reveal; then the verdict, the reason and the table. */
function choiceForm(p, draw) {
  const choices = p.kind === "cube"
    ? CUBE_CHOICES.map(([value, key]) => [value, t(key)])
    : [...p.candidates].map((c) => c.play).sort((a, b) => a.localeCompare(b)).map((play) => [play, play]);
  const right = p.kind === "cube" ? cubeAnswer(p.answer) : p.answer.play;
  const fieldset = h("fieldset", { class: "dy-choices", id: "dy-choices" },
    h("legend", { class: "muted" }, t("dy_your_choice")),
    choices.map(([value, text], i) => {
      const input = h("input", { type: "radio", name: "dy-choice", value, id: `dy-choice-${i}` });
      input.addEventListener("change", () => { if (p.kind !== "cube") draw(value); });
      return h("label", { for: `dy-choice-${i}`, dataset: { value } }, input, text);
    }));
  const check = h("button", { type: "submit", id: "dy-check" }, t("dy_check"));
  const reveal = h("button", { type: "button", id: "dy-reveal" }, t("dy_reveal"));
  const result = h("div", { class: "dy-result", id: "dy-result", "aria-live": "polite" });
  const form = h("form", { class: "dy-form" }, fieldset, h("div", { class: "dy-actions" }, check, reveal));

  const answerText = p.kind === "cube" ? t(CUBE_CHOICES.find(([v]) => v === right)[1]) : right;
  const finish = (chosen) => {
    for (const input of fieldset.querySelectorAll("input")) input.disabled = true;
    check.disabled = reveal.disabled = true;
    for (const label of fieldset.querySelectorAll("label")) {
      label.classList.toggle("right", label.dataset.value === right);
      label.classList.toggle("wrong", chosen != null && label.dataset.value === chosen && chosen !== right);
    }
    if (p.kind !== "cube") draw(right);
    const verdict = chosen == null ? h("p", { class: "dy-verdict" }, t("dy_answer", { a: answerText }))
      : chosen === right ? h("p", { class: "dy-verdict right" }, t("dy_right"))
        : h("p", { class: "dy-verdict wrong" }, t("dy_wrong", { a: answerText }));
    const reason = p.reason?.[lang()] || p.reason?.en || "";
    result.replaceChildren(verdict, h("p", { class: "dy-reason", id: "dy-reason" }, reason), table(p));
    if (p.selection?.fallback) result.append(h("p", { class: "muted" }, t("dy_fallback")));
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const chosen = fieldset.querySelector("input:checked")?.value;
    if (!chosen) { result.replaceChildren(h("p", { class: "error-message" }, t("dy_choose"))); return; }
    finish(chosen);
  });
  reveal.addEventListener("click", () => finish(null));
  return { form, result };
}

// ---- the candidates with the answer marked
function table(p) {
  if (p.kind === "cube") {
    const right = cubeAnswer(p.answer);
    return h("div", { class: "an-table-wrap" }, h("table", { class: "dy-table" },
      h("thead", {}, h("tr", {}, h("th", {}, t("dy_action")), h("th", {}, t("dy_equity")))),
      h("tbody", {}, p.candidates.map((c) => h("tr", { class: c.action === right ? "answer" : "" },
        h("td", {}, t(CUBE_CHOICES.find(([v]) => v === c.action)?.[1] || c.action)), h("td", {}, fmtEq(c.equity)))))));
  }
  return h("div", { class: "an-table-wrap" }, h("table", { class: "dy-table" },
    h("thead", {}, h("tr", {}, ["dy_play", "dy_equity", "dy_loss", "dy_win"].map((k) => h("th", {}, t(k))))),
    h("tbody", {}, p.candidates.map((c) => h("tr", { class: c.play === p.answer.play ? "answer" : "" },
      h("td", {}, c.play), h("td", {}, fmtEq(c.rollout_equity ?? c.ply_equity)),
      h("td", {}, c.loss ? fmtEq(-c.loss) : "0"), h("td", {}, fmtPct(c.rollout_probs?.[0])))))));
}
