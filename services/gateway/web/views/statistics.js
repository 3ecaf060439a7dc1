// A player's statistics (GET /v1/players/{id}/statistics, .../achievements, .../plan): games and matches,
// the rating with its rank and monthly ladder, the PR trend of the analysed matches as a chart, the most
// frequent mistakes, results by level, the dice, the daily results, the recent matches, the achievements and
// the weekly plan. Address: /?view=statistics[&player=<id>].
import { api } from "../api.js";
import { remember } from "../shell.js";
import { t, addMessages } from "../i18n.js";
import { playerPicker } from "../players.js";
import { h, fmtNum, fmtPct, problemText } from "../ui.js";

addMessages({
  en: {
    st_title: "Statistics", st_games: "Games", st_matches: "Matches", st_played: "played", st_won: "won",
    st_win_rate: "Win rate", st_gammons: "Gammons won / lost", st_backgammons: "Backgammons won / lost",
    st_streak: "Longest win streak", st_rating: "Rating", st_rank: "Rank", st_ladder: "Monthly ladder",
    st_month: "Month", st_games_rated: "Games", st_pr: "PR trend", st_pr_none: "No analysed match yet: analyse a match for this player to see its PR.",
    st_pr_summary: "Last {last} · best {best} · mean of the last five {mean}", st_pr_chart: "PR of the analysed matches, oldest to newest",
    st_mistakes: "Your most frequent mistakes", st_mistakes_none: "Not enough analysed decisions yet (20 per position type).",
    st_type: "Position type", st_decisions: "Decisions", st_errors: "Errors", st_lost: "Points lost", st_trend: "Trend",
    st_better: "Better", st_worse: "Worse", st_steady: "Steady", st_levels: "By level", st_level: "Level",
    st_dice: "Dice", st_number: "Number", st_count: "Count", st_expected: "Expected",
    st_daily: "Daily puzzles", st_rules: "Puzzle", st_solved: "Solved", st_daily_streak: "Streak", st_best_streak: "Best streak",
    st_mean_loss: "Mean loss", st_recent: "Recent matches", st_date: "Date", st_opponent: "Opponent", st_length: "Length", st_result: "Result",
    st_win: "won", st_loss: "lost", st_open: "–", st_achievements: "Achievements ({n} of 20)", st_reached: "reached {date}",
    st_plan: "This week's plan", st_week: "Week of {date}", st_task_cards: "Answer {target} cards of this type",
    st_task_daily: "Solve {target} daily positions", st_task_exercise: "Exercise: {name}", st_task_lesson: "Lesson: {name}",
    st_done: "{done} of {target}", st_reset: "Reset statistics", st_reset_confirm: "Start this player's statistics again?",
    st_international: "International", st_tavla: "Tavla", st_cube: "Cube decision", st_money: "money",
    st_plan_empty: "No plan yet: a plan needs 40 analysed decisions in a position type. Analyse more of your matches.",
  },
  de: {
    st_title: "Statistik", st_games: "Spiele", st_matches: "Matches", st_played: "gespielt", st_won: "gewonnen",
    st_win_rate: "Siegquote", st_gammons: "Gammons gewonnen / verloren", st_backgammons: "Backgammons gewonnen / verloren",
    st_streak: "Längste Siegesserie", st_rating: "Wertung", st_rank: "Rang", st_ladder: "Monatsleiter",
    st_month: "Monat", st_games_rated: "Spiele", st_pr: "PR-Verlauf", st_pr_none: "Noch kein analysiertes Match: analysiere ein Match dieses Spielers, um seinen PR zu sehen.",
    st_pr_summary: "Letzter {last} · bester {best} · Schnitt der letzten fünf {mean}", st_pr_chart: "PR der analysierten Matches, vom ältesten zum neuesten",
    st_mistakes: "Deine häufigsten Fehler", st_mistakes_none: "Noch zu wenige analysierte Entscheidungen (20 je Stellungstyp).",
    st_type: "Stellungstyp", st_decisions: "Entscheidungen", st_errors: "Fehler", st_lost: "Verlorene Punkte", st_trend: "Tendenz",
    st_better: "Besser", st_worse: "Schlechter", st_steady: "Gleich", st_levels: "Nach Stufe", st_level: "Stufe",
    st_dice: "Würfel", st_number: "Augenzahl", st_count: "Anzahl", st_expected: "Erwartet",
    st_daily: "Stellung des Tages", st_rules: "Rätsel", st_solved: "Gelöst", st_daily_streak: "Serie", st_best_streak: "Beste Serie",
    st_mean_loss: "Mittlerer Verlust", st_recent: "Letzte Matches", st_date: "Datum", st_opponent: "Gegner", st_length: "Länge", st_result: "Ergebnis",
    st_win: "gewonnen", st_loss: "verloren", st_open: "–", st_achievements: "Erfolge ({n} von 20)", st_reached: "erreicht am {date}",
    st_plan: "Plan dieser Woche", st_week: "Woche ab {date}", st_task_cards: "{target} Karten dieser Art beantworten",
    st_task_daily: "{target} Stellungen des Tages lösen", st_task_exercise: "Übung: {name}", st_task_lesson: "Lektion: {name}",
    st_done: "{done} von {target}", st_reset: "Statistik zurücksetzen", st_reset_confirm: "Die Statistik dieses Spielers von vorn beginnen?",
    st_international: "International", st_tavla: "Tavla", st_cube: "Dopplerentscheidung", st_money: "Geldspiel",
    st_plan_empty: "Noch kein Plan: Ein Plan braucht 40 analysierte Entscheidungen eines Stellungstyps. Analysiere mehr deiner Matches.",
  },
  tr: {
    st_title: "İstatistik", st_games: "Oyunlar", st_matches: "Maçlar", st_played: "oynanan", st_won: "kazanılan",
    st_win_rate: "Kazanma oranı", st_gammons: "Kazanılan / kaybedilen mars", st_backgammons: "Kazanılan / kaybedilen backgammon",
    st_streak: "En uzun galibiyet serisi", st_rating: "Puan", st_rank: "Rütbe", st_ladder: "Aylık sıralama",
    st_month: "Ay", st_games_rated: "Oyun", st_pr: "PR gidişatı", st_pr_none: "Henüz analiz edilmiş maç yok: PR'sini görmek için bu oyuncunun bir maçını analiz edin.",
    st_pr_summary: "Son {last} · en iyi {best} · son beşin ortalaması {mean}", st_pr_chart: "Analiz edilen maçların PR'si, en eskiden en yeniye",
    st_mistakes: "En sık hataların", st_mistakes_none: "Henüz yeterince analiz edilmiş karar yok (pozisyon türü başına 20).",
    st_type: "Pozisyon türü", st_decisions: "Kararlar", st_errors: "Hatalar", st_lost: "Kaybedilen puan", st_trend: "Eğilim",
    st_better: "Daha iyi", st_worse: "Daha kötü", st_steady: "Aynı", st_levels: "Seviyeye göre", st_level: "Seviye",
    st_dice: "Zarlar", st_number: "Sayı", st_count: "Adet", st_expected: "Beklenen",
    st_daily: "Günün pozisyonu", st_rules: "Bulmaca", st_solved: "Çözülen", st_daily_streak: "Seri", st_best_streak: "En iyi seri",
    st_mean_loss: "Ortalama kayıp", st_recent: "Son maçlar", st_date: "Tarih", st_opponent: "Rakip", st_length: "Uzunluk", st_result: "Sonuç",
    st_win: "kazandı", st_loss: "kaybetti", st_open: "–", st_achievements: "Başarılar (20'de {n})", st_reached: "{date} tarihinde",
    st_plan: "Bu haftanın planı", st_week: "{date} haftası", st_task_cards: "Bu türden {target} kart cevapla",
    st_task_daily: "{target} günün pozisyonunu çöz", st_task_exercise: "Alıştırma: {name}", st_task_lesson: "Ders: {name}",
    st_done: "{target} içinde {done}", st_reset: "İstatistiği sıfırla", st_reset_confirm: "Bu oyuncunun istatistiği sıfırlansın mı?",
    st_international: "Uluslararası", st_tavla: "Tavla", st_cube: "Küp kararı", st_money: "para oyunu",
    st_plan_empty: "Henüz plan yok: bir plan için bir pozisyon türünde 40 analiz edilmiş karar gerekir. Daha fazla maçını analiz et.",
  },
});

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, ...children) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  for (const c of children.flat()) if (c) e.append(c);
  return e;
}

function date(seconds) {
  return seconds == null ? "–" : new Date(seconds * 1000).toISOString().slice(0, 10);
}

function section(id, title, ...body) {
  return h("section", { class: "panel st-section", id }, h("h2", {}, title), ...body);
}

function table(heads, rows, attrs = {}) {
  return h("div", { class: "table-scroll" }, h("table", attrs,
    h("thead", {}, h("tr", {}, heads.map((x) => h("th", {}, x)))),
    h("tbody", {}, rows.map((r) => h("tr", {}, r.map((x) => h("td", {}, x)))))));
}

// The view's state: s = {controller, el, body, player}.
export async function mount(el, params) {
  const s = { controller: new AbortController(), el, body: h("div", { id: "st-body", "aria-live": "polite" }) };
  el.classList.add("st-view");
  el.append(h("h1", {}, t("st_title")));
  try {
    const picker = await playerPicker(params.player, (id) => { s.player = id; load(s); }, s.controller.signal);
    s.player = picker.id;
    el.append(picker.el, s.body);
  } catch (e) {
    if (e.name !== "AbortError") el.append(h("p", { class: "error-message", role: "alert" }, problemText(e)));
    return () => s.controller.abort();
  }
  load(s);
  return () => s.controller.abort();
}

async function load(s) {
  remember({ view: "statistics", player: s.player });
  if (!s.player) { s.body.replaceChildren(); return; }
  s.body.replaceChildren(h("p", { class: "muted" }, t("loading")));
  const base = `/v1/players/${s.player}`;
  let stats, achievements, plan;
  try {
    [stats, achievements, plan] = await Promise.all(
      ["/statistics", "/achievements", "/plan"].map((p) => api(base + p, { signal: s.controller.signal })));
  } catch (e) {
    if (e.name !== "AbortError") s.body.replaceChildren(h("p", { class: "error-message", role: "alert" }, problemText(e)));
    return;
  }
  const reset = h("button", { type: "button", id: "st-reset" }, t("st_reset"));
  reset.addEventListener("click", async () => {
    if (!window.confirm(t("st_reset_confirm"))) return;
    await api(`${base}/statistics/reset`, { method: "POST" });
    load(s);
  });
  const parts = [overview(stats), prTrend(stats.pr), mistakes(stats.frequent_mistakes), rating(stats.rating),
    levels(stats.by_level), dice(stats.dice), daily(stats.daily), recent(stats.recent_matches), badges(achievements),
    weekly(plan), h("p", {}, reset)];
  s.body.replaceChildren(...parts.filter(Boolean));
}

function overview(st) {
  return section("st-overview", t("st_games"), table(["", t("st_played"), t("st_won"), t("st_win_rate")], [
    [t("st_games"), st.games_played, st.games_won, fmtPct(st.win_rate)],
    [t("st_matches"), st.matches_played, st.matches_won, fmtPct(st.match_win_rate)],
  ], { id: "st-games" }), h("p", {}, `${t("st_gammons")}: ${st.gammons_won} / ${st.gammons_lost} · `
    + `${t("st_backgammons")}: ${st.backgammons_won} / ${st.backgammons_lost} · ${t("st_streak")}: `, h("strong", { id: "st-streak" }, st.longest_win_streak)));
}

/** The PR of the analysed matches as a line, oldest to newest (lower is better: the axis grows downwards). */
function prTrend(pr) {
  if (!pr.points.length) return section("st-pr", t("st_pr"), h("p", { class: "muted", id: "st-pr-none" }, t("st_pr_none")));
  const W = 480, H = 160, P = 24;
  const values = pr.points.map((p) => p.pr);
  const top = Math.max(...values, 1);
  const x = (i) => P + (values.length === 1 ? (W - 2 * P) / 2 : (i * (W - 2 * P)) / (values.length - 1));
  const y = (v) => P + ((H - 2 * P) * v) / top;
  const line = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "st-chart", id: "st-pr-chart", role: "img", "aria-label": t("st_pr_chart") },
    svg("title", {}, document.createTextNode(t("st_pr_chart"))),
    svg("line", { x1: P, y1: P, x2: W - P, y2: P, class: "st-axis" }),
    svg("text", { x: 2, y: P + 4, class: "st-tick" }, document.createTextNode("0")),
    svg("text", { x: 2, y: H - P + 4, class: "st-tick" }, document.createTextNode(fmtNum(top, 1))),
    svg("polyline", { points: line, class: "st-line" }),
    values.map((v, i) => svg("circle", { cx: x(i), cy: y(v), r: 3, class: "st-point" },
      svg("title", {}, document.createTextNode(`${date(pr.points[i].time)}: ${fmtNum(v, 1)}`)))));
  return section("st-pr", t("st_pr"), chart, h("p", { id: "st-pr-summary" },
    t("st_pr_summary", { last: fmtNum(pr.last, 1), best: fmtNum(pr.best, 1), mean: fmtNum(pr.mean_last5, 1) })));
}

function mistakes(list) {
  if (!list.length) return section("st-mistakes", t("st_mistakes"), h("p", { class: "muted" }, t("st_mistakes_none")));
  return section("st-mistakes", t("st_mistakes"), table(
    [t("st_type"), t("st_decisions"), t("st_errors"), "PR", t("st_lost"), t("st_trend")],
    list.map((m) => [m.name, m.decisions, m.errors, fmtNum(m.pr, 1), fmtNum(m.points_lost, 2),
      m.trend ? t(`st_${m.trend}`) : "–"]), { id: "st-mistakes-table" }));
}

function rating(r) {
  return section("st-rating", t("st_rating"),
    h("p", {}, h("strong", { id: "st-rating-value" }, fmtNum(r.value, 0)), ` · ${t("st_rank")}: `, h("span", { id: "st-rank" }, r.rank.name)),
    r.ladder.length ? table([t("st_month"), t("st_rating"), t("st_games_rated")],
      r.ladder.map((m) => [m.month, fmtNum(m.rating, 0), m.games]), { id: "st-ladder", "aria-label": t("st_ladder") }) : null);
}

function levels(by) {
  const names = Object.keys(by);
  if (!names.length) return null;
  return section("st-levels", t("st_levels"), table([t("st_level"), t("st_games"), t("st_won"), t("st_matches"), t("st_won")],
    names.map((l) => [l, by[l].games_played, by[l].games_won, by[l].matches_played, by[l].matches_won])));
}

function dice(d) {
  return section("st-dice", t("st_dice"), table([t("st_number"), t("st_count"), t("st_expected")],
    d.counts.map((c, i) => [i + 1, c, fmtNum(d.expected, 1)]), { id: "st-dice-table" }));
}

function daily(by) {
  const keys = Object.keys(by);
  if (!keys.length) return null;
  return section("st-daily", t("st_daily"), table(
    [t("st_rules"), t("st_solved"), t("st_daily_streak"), t("st_best_streak"), t("st_mean_loss")],
    keys.map((k) => [t(`st_${k}`), `${by[k].solved} / ${by[k].tried}`, by[k].streak, by[k].best_streak, fmtNum(by[k].mean_loss, 3)])));
}

function recent(matches) {
  if (!matches.length) return null;
  return section("st-recent", t("st_recent"), table(
    [t("st_date"), t("st_opponent"), t("st_length"), t("st_result"), "PR"],
    matches.map((m) => [date(m.played), m.opponent ?? "–", m.length ? String(m.length) : t("st_money"),
      m.won == null ? t("st_open") : t(m.won ? "st_win" : "st_loss"), fmtNum(m.pr, 1)]), { id: "st-recent-table" }));
}

function badges(a) {
  return section("st-achievements", t("st_achievements", { n: a.reached }), h("ul", { class: "st-badges" },
    a.achievements.map((x) => h("li", { class: x.reached ? "reached" : "", dataset: { id: x.id } },
      x.condition, x.reached ? h("span", { class: "muted" }, ` · ${t("st_reached", { date: date(x.reached) })}`) : null))));
}

function weekly(plan) {
  const body = plan.areas.length
    ? plan.areas.map((a) => h("div", { class: "st-area" }, h("h3", {}, `${a.name} (PR ${fmtNum(a.pr, 1)})`),
      h("ul", {}, a.tasks.map((task) => h("li", { dataset: { kind: task.kind } },
        t(`st_task_${task.kind}`, { target: task.target, name: task.exercise || task.lesson || "" }),
        task.done == null ? null : h("span", { class: "muted" }, ` · ${t("st_done", { done: task.done, target: task.target })}`))))))
    : [h("p", { class: "muted", id: "st-plan-reason" }, t("st_plan_empty"))];
  return section("st-plan", t("st_plan"), h("p", { class: "muted" }, t("st_week", { date: plan.week })), ...body);
}
