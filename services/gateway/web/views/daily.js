// The daily puzzles (GET /v1/daily/today or /v1/daily/{date}, ?rules=international|tavla&kind=position|cube):
// the board, the user's choice (a play or a cube action), then the answer, its reason (en/de/tr) and the
// candidates. A puzzle not produced yet (404) is a readable message. Address: /?view=daily[&rules][&kind][&date].
// With a player chosen in this browser the puzzle comes without its answer until the player has attempted
// it: "Check" posts the attempt (POST /v1/daily/{date}/attempts; the first counts for the statistics and the
// streak) and shows the whole puzzle; no "Reveal" before that. Below the puzzle, the player's record of the
// tab: the streak (GET /v1/players/{id}/statistics, its daily) and the month's calendar of solved, missed
// and not-tried days (GET /v1/players/{id}/daily?month&rules&kind); a day of the calendar opens its puzzle.
import { api, ApiError } from "../api.js";
import { remember } from "../shell.js";
import { t, lang, formatDate } from "../i18n.js";
import { drawBoard, boardFromPosition, arrowsOfNotation } from "../board.js";
import { h, decodePositionId, fmtEq, fmtPct, problemText } from "../ui.js";
import { currentPlayer } from "../players.js";


const TABS = [
  { key: "daily.intl_position", rules: "international", kind: "position" },
  { key: "daily.tavla_position", rules: "tavla", kind: "position" },
  { key: "daily.intl_cube", rules: "international", kind: "cube" },
];
const CUBE_CHOICES = [["no double", "daily.nd"], ["double/take", "daily.dt"], ["double/pass", "daily.dp"]];

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
  d.tabs = h("div", { class: "dy-tabs", role: "group", "aria-label": t("daily.title") },
    TABS.map((tab) => h("button", { type: "button", dataset: { rules: tab.rules, kind: tab.kind },
      onclick: () => { d.rules = tab.rules; d.kind = tab.kind; load(d); } }, t(tab.key))));
  const dateInput = h("input", { type: "date", id: "dy-date", value: d.date || "" });
  const todayButton = h("button", { type: "button", id: "dy-today" }, t("daily.today"));
  dateInput.addEventListener("change", () => { d.date = dateInput.value || null; load(d); });
  todayButton.addEventListener("click", () => { d.date = null; dateInput.value = ""; load(d); });
  d.box = h("section", { id: "dy-box", "aria-live": "polite" });
  d.record = h("section", { id: "dy-record", class: "dy-record", "aria-label": t("daily.record") });
  d.pick = (date) => { d.date = date; dateInput.value = date; load(d); };
  el.append(h("h1", {}, t("daily.title")), d.tabs,
    h("p", { class: "dy-date" }, h("label", { for: "dy-date" }, t("daily.date")), " ", dateInput, " ", todayButton), d.box, d.record);
  load(d);
  return () => d.controller.abort();
}

// ---- the puzzle of the chosen day, rule set and kind (or why there is none)
async function load(d) {
  const { rules, kind, date, box } = d;
  for (const b of d.tabs.querySelectorAll("button"))
    b.setAttribute("aria-pressed", String(b.dataset.rules === rules && b.dataset.kind === kind));
  remember({ view: "daily", rules: rules === "international" ? null : rules, kind: kind === "position" ? null : kind, date });
  box.replaceChildren(h("p", { class: "muted" }, t("app.loading")));
  const player = currentPlayer();
  record(d, player);
  const path = `/v1/daily/${date || "today"}?rules=${rules}&kind=${kind}${player ? `&player=${encodeURIComponent(player)}` : ""}`;
  let puzzle;
  try {
    puzzle = await api(path, { signal: d.controller.signal });
    d.path = path;
  } catch (e) {
    if (e.name === "AbortError") return;
    if (e instanceof ApiError && e.status === 404) {
      const day = date || new Date().toISOString().slice(0, 10);
      box.replaceChildren(h("p", { class: "dy-missing", id: "dy-missing" },
        t("daily.missing", { what: t(`daily.what_${kind}`), date: day })));
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
  const question = p.kind === "cube" ? t("daily.cube_q", { date: p.date }) : t("daily.position_q", { date: p.date, dice });
  const facts = h("p", { class: "muted" }, p.match_length
    ? t("daily.score", { a: p.score[0], b: p.score[1], n: p.match_length }) : t("daily.money"));
  const form = choiceForm(p, draw, d);
  const type = p.position_type || {};
  d.box.replaceChildren(h("article", { class: "dy-card", dataset: { kind: p.kind, rules: p.rules } },
    h("div", {}, boardBox),
    h("div", {}, h("h2", {}, question), facts,
      type.plan ? h("p", { class: "muted" }, t("daily.plan", { p: type.plan })) : null,
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
    drawBoard(boardBox, board, { arrows: notation ? arrowsOfNotation(notation) : [], label: `${t("daily.title")} ${p.date}` });
  };
  return { boardBox, draw };
}

/** The player's attempt at a puzzle shown without its answer: the attempt posted, then the whole puzzle. */
async function attempt(d, p, chosen) {
  const body = { player: currentPlayer(), rules: p.rules, kind: p.kind };
  if (p.kind === "cube") Object.assign(body, { double: chosen !== "no double", response: chosen === "double/pass" ? "pass" : "take" });
  else body.notation = chosen;
  if (p.kind === "cube" && chosen === "no double") delete body.response;
  const out = await api(`/v1/daily/${p.date}/attempts`, { method: "POST", body, signal: d.controller.signal });
  return { out, whole: await api(d.path, { signal: d.controller.signal }) };
}

/** The choices (plays or cube actions), check and reveal; then the verdict, the reason and the table. */
function choiceForm(p, draw, d) {
  const choices = p.kind === "cube"
    ? CUBE_CHOICES.map(([value, key]) => [value, t(key)])
    : [...p.candidates].map((c) => c.play).sort((a, b) => a.localeCompare(b)).map((play) => [play, play]);
  const hidden = !p.answer; // a player's puzzle before the attempt
  const right = hidden ? null : p.kind === "cube" ? cubeAnswer(p.answer) : p.answer.play;
  const fieldset = h("fieldset", { class: "dy-choices", id: "dy-choices" },
    h("legend", { class: "muted" }, t("daily.your_choice")),
    choices.map(([value, text], i) => {
      const input = h("input", { type: "radio", name: "dy-choice", value, id: `dy-choice-${i}` });
      input.addEventListener("change", () => { if (p.kind !== "cube") draw(value); });
      return h("label", { for: `dy-choice-${i}`, dataset: { value } }, input, text);
    }));
  const check = h("button", { type: "submit", id: "dy-check" }, t("daily.check"));
  const reveal = h("button", { type: "button", id: "dy-reveal" }, t("daily.reveal"));
  const result = h("div", { class: "dy-result", id: "dy-result", "aria-live": "polite" });
  const form = h("form", { class: "dy-form" }, fieldset, h("div", { class: "dy-actions" }, check, reveal));

  if (hidden) reveal.hidden = true;
  const answerText = hidden ? "" : p.kind === "cube" ? t(CUBE_CHOICES.find(([v]) => v === right)[1]) : right;
  const finish = (chosen) => {
    for (const input of fieldset.querySelectorAll("input")) input.disabled = true;
    check.disabled = reveal.disabled = true;
    for (const label of fieldset.querySelectorAll("label")) {
      label.classList.toggle("right", label.dataset.value === right);
      label.classList.toggle("wrong", chosen != null && label.dataset.value === chosen && chosen !== right);
    }
    if (p.kind !== "cube") draw(right);
    const verdict = chosen == null ? h("p", { class: "dy-verdict" }, t("daily.answer", { a: answerText }))
      : chosen === right ? h("p", { class: "dy-verdict right" }, t("daily.right"))
        : h("p", { class: "dy-verdict wrong" }, t("daily.wrong", { a: answerText }));
    const reason = p.reason?.[lang()] || p.reason?.en || "";
    result.replaceChildren(verdict, h("p", { class: "dy-reason", id: "dy-reason" }, reason), table(p));
    if (p.selection?.fallback) result.append(h("p", { class: "muted" }, t("daily.fallback")));
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const chosen = fieldset.querySelector("input:checked")?.value;
    if (!chosen) { result.replaceChildren(h("p", { class: "error-message" }, t("daily.choose"))); return; }
    if (!hidden) { finish(chosen); return; }
    check.disabled = true;
    attempt(d, p, chosen).then(({ out, whole }) => {
      const again = choiceForm(whole, draw, d);
      form.replaceWith(again.form);
      result.replaceWith(again.result);
      again.finish(chosen);
      again.result.prepend(h("p", { class: "muted", id: "dy-attempt" }, t(out.first_attempt ? "daily.counted" : "daily.not_counted")));
      record(d, currentPlayer());
    }).catch((err) => {
      check.disabled = false;
      if (err.name !== "AbortError") result.replaceChildren(h("p", { class: "error-message", role: "alert" }, problemText(err)));
    });
  });
  reveal.addEventListener("click", () => finish(null));
  return { form, result, finish };
}

// ---- the player's streak of the tab and the month's calendar (nothing without a player)
async function record(d, player) {
  if (!player) { d.record.replaceChildren(); return; }
  const month = (d.date || new Date().toISOString()).slice(0, 7);
  const { rules, kind } = d;
  const id = encodeURIComponent(player);
  let stats, cal;
  try {
    [stats, cal] = await Promise.all([api(`/v1/players/${id}/statistics`, { signal: d.controller.signal }),
      api(`/v1/players/${id}/daily?month=${month}&rules=${rules}&kind=${kind}`, { signal: d.controller.signal })]);
  } catch (e) {
    if (e.name !== "AbortError") d.record.replaceChildren(h("p", { class: "error-message", role: "alert" }, problemText(e)));
    return;
  }
  if (d.rules !== rules || d.kind !== kind) return; // another tab was chosen meanwhile
  const r = stats.daily?.[kind === "cube" ? "cube" : rules] || { streak: 0, best_streak: 0, tried: 0, solved: 0 };
  const first = new Date(`${month}-01T00:00:00Z`).getUTCDay(); // 0 Sunday: the weeks start on Monday
  const pad = Array.from({ length: (first + 6) % 7 }, () => h("li", { class: "dy-pad", "aria-hidden": "true" }));
  const days = cal.days.map((x) => h("li", {}, h("button", {
    type: "button", class: `dy-day ${x.state}`, dataset: { date: x.date, state: x.state }, "aria-current": x.date === d.date ? "date" : null,
    "aria-label": `${x.date}: ${t(`daily.day_${x.state}`)}`, title: t(`daily.day_${x.state}`), onclick: () => d.pick(x.date),
  }, String(Number(x.date.slice(8))))));
  d.record.replaceChildren(
    h("h2", {}, t("daily.record")),
    h("p", { id: "dy-streak" }, t("daily.streak", { n: r.streak, best: r.best_streak, solved: r.solved, tried: r.tried })),
    h("h3", {}, t("daily.calendar", { month: formatDate(new Date(`${month}-15T12:00:00Z`), { month: "long", year: "numeric", timeZone: "UTC" }) })),
    h("ol", { class: "dy-calendar", id: "dy-calendar" }, pad, days),
    h("p", { class: "muted dy-legend" }, ["solved", "missed", "not_tried"].map((s) =>
      h("span", { class: `dy-key ${s}` }, t(`daily.day_${s}`)))));
}

// ---- the candidates with the answer marked
function table(p) {
  if (p.kind === "cube") {
    const right = cubeAnswer(p.answer);
    return h("div", { class: "an-table-wrap" }, h("table", { class: "dy-table" },
      h("thead", {}, h("tr", {}, h("th", {}, t("daily.action")), h("th", {}, t("daily.equity")))),
      h("tbody", {}, p.candidates.map((c) => h("tr", { class: c.action === right ? "answer" : "" },
        h("td", {}, t(CUBE_CHOICES.find(([v]) => v === c.action)?.[1] || c.action)), h("td", {}, fmtEq(c.equity)))))));
  }
  return h("div", { class: "an-table-wrap" }, h("table", { class: "dy-table" },
    h("thead", {}, h("tr", {}, ["daily.play", "daily.equity", "daily.loss", "daily.win"].map((k) => h("th", {}, t(k))))),
    h("tbody", {}, p.candidates.map((c) => h("tr", { class: c.play === p.answer.play ? "answer" : "" },
      h("td", {}, c.play), h("td", {}, fmtEq(c.rollout_equity ?? c.ply_equity)),
      h("td", {}, c.loss ? fmtEq(-c.loss) : "0"), h("td", {}, fmtPct(c.rollout_probs?.[0])))))));
}
