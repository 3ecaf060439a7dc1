// A player's statistics (GET /v1/players/{id}/statistics, .../achievements, .../plan): games and matches,
// the rating with its rank and monthly ladder, the PR trend of the analysed matches as a chart, the most
// frequent mistakes, results by level, the dice, the daily results, the exercises, the recent matches, the
// achievements and the weekly plan. Address: /?view=statistics[&player=<id>].
import { api } from "../api.js";
import { remember } from "../shell.js";
import { t } from "../i18n.js";
import { playerView } from "../players.js";
import { levelName, opponentName } from "../names.js";
import { h, fmtNum, fmtPct, problemText } from "../ui.js";


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
export function mount(el, params) {
  return playerView(el, params, { cls: "st-view", title: "statistics.title", bodyId: "st-body" }, load);
}

async function load(s) {
  remember({ view: "statistics", player: s.player });
  if (!s.player) { s.body.replaceChildren(); return; }
  s.body.replaceChildren(h("p", { class: "muted" }, t("app.loading")));
  const base = `/v1/players/${s.player}`;
  let stats, achievements, plan;
  try {
    [stats, achievements, plan] = await Promise.all(
      ["/statistics", "/achievements", "/plan"].map((p) => api(base + p, { signal: s.controller.signal })));
  } catch (e) {
    if (e.name !== "AbortError") s.body.replaceChildren(h("p", { class: "error-message", role: "alert" }, problemText(e)));
    return;
  }
  const reset = h("button", { type: "button", id: "st-reset" }, t("statistics.reset"));
  reset.addEventListener("click", async () => {
    if (!window.confirm(t("statistics.reset_confirm"))) return;
    await api(`${base}/statistics/reset`, { method: "POST" });
    load(s);
  });
  const parts = [overview(stats), prTrend(stats.pr), mistakes(stats.frequent_mistakes), rating(stats.rating),
    levels(stats.by_level), dice(stats.dice), daily(stats.daily), exercises(stats.exercises), recent(stats.recent_matches), badges(achievements),
    weekly(plan), h("p", {}, reset)];
  s.body.replaceChildren(...parts.filter(Boolean));
}

function overview(st) {
  return section("st-overview", t("statistics.games"), table(["", t("statistics.played"), t("statistics.won"), t("statistics.win_rate")], [
    [t("statistics.games"), st.games_played, st.games_won, fmtPct(st.win_rate)],
    [t("statistics.matches"), st.matches_played, st.matches_won, fmtPct(st.match_win_rate)],
  ], { id: "st-games" }), h("p", {}, `${t("statistics.gammons")}: ${st.gammons_won} / ${st.gammons_lost} · `
    + `${t("statistics.backgammons")}: ${st.backgammons_won} / ${st.backgammons_lost} · ${t("statistics.streak")}: `, h("strong", { id: "st-streak" }, st.longest_win_streak)));
}

/** The PR of the analysed matches as a line, oldest to newest (lower is better: the axis grows downwards). */
function prTrend(pr) {
  if (!pr.points.length) return section("st-pr", t("statistics.pr"), h("p", { class: "muted", id: "st-pr-none" }, t("statistics.pr_none")));
  const W = 480, H = 160, P = 24;
  const values = pr.points.map((p) => p.pr);
  const top = Math.max(...values, 1);
  const x = (i) => P + (values.length === 1 ? (W - 2 * P) / 2 : (i * (W - 2 * P)) / (values.length - 1));
  const y = (v) => P + ((H - 2 * P) * v) / top;
  const line = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "st-chart", id: "st-pr-chart", role: "img", "aria-label": t("statistics.pr_chart") },
    svg("title", {}, document.createTextNode(t("statistics.pr_chart"))),
    svg("line", { x1: P, y1: P, x2: W - P, y2: P, class: "st-axis" }),
    svg("text", { x: 2, y: P + 4, class: "st-tick" }, document.createTextNode("0")),
    svg("text", { x: 2, y: H - P + 4, class: "st-tick" }, document.createTextNode(fmtNum(top, 1))),
    svg("polyline", { points: line, class: "st-line" }),
    values.map((v, i) => svg("circle", { cx: x(i), cy: y(v), r: 3, class: "st-point" },
      svg("title", {}, document.createTextNode(`${date(pr.points[i].time)}: ${fmtNum(v, 1)}`)))));
  return section("st-pr", t("statistics.pr"), chart, h("p", { id: "st-pr-summary" },
    t("statistics.pr_summary", { last: fmtNum(pr.last, 1), best: fmtNum(pr.best, 1), mean: fmtNum(pr.mean_last5, 1) })));
}

function mistakes(list) {
  if (!list.length) return section("st-mistakes", t("statistics.mistakes"), h("p", { class: "muted" }, t("statistics.mistakes_none")));
  return section("st-mistakes", t("statistics.mistakes"), table(
    [t("statistics.type"), t("statistics.decisions"), t("statistics.errors"), "PR", t("statistics.lost"), t("statistics.trend")],
    list.map((m) => [m.name, m.decisions, m.errors, fmtNum(m.pr, 1), fmtNum(m.points_lost, 2),
      m.trend ? t(`statistics.${m.trend}`) : "–"]), { id: "st-mistakes-table" }));
}

function rating(r) {
  return section("st-rating", t("statistics.rating"),
    h("p", {}, h("strong", { id: "st-rating-value" }, fmtNum(r.value, 0)), ` · ${t("statistics.rank")}: `, h("span", { id: "st-rank" }, r.rank.name)),
    r.ladder.length ? table([t("statistics.month"), t("statistics.rating"), t("statistics.games_rated")],
      r.ladder.map((m) => [m.month, fmtNum(m.rating, 0), m.games]), { id: "st-ladder", "aria-label": t("statistics.ladder") }) : null);
}

function levels(by) {
  const names = Object.keys(by);
  if (!names.length) return null;
  return section("st-levels", t("statistics.levels"), table([t("statistics.level"), t("statistics.games"), t("statistics.won"), t("statistics.matches"), t("statistics.won")],
    names.map((l) => [levelName(l), by[l].games_played, by[l].games_won, by[l].matches_played, by[l].matches_won])));
}

function dice(d) {
  return section("st-dice", t("statistics.dice"), table([t("statistics.number"), t("statistics.count"), t("statistics.expected")],
    d.counts.map((c, i) => [i + 1, c, fmtNum(d.expected, 1)]), { id: "st-dice-table" }));
}

function daily(by) {
  const keys = Object.keys(by);
  if (!keys.length) return null;
  return section("st-daily", t("statistics.daily"), table(
    [t("statistics.rules"), t("statistics.solved"), t("statistics.daily_streak"), t("statistics.best_streak"), t("statistics.mean_loss")],
    keys.map((k) => [t(`statistics.${k}`), `${by[k].solved} / ${by[k].tried}`, by[k].streak, by[k].best_streak, fmtNum(by[k].mean_loss, 3)])));
}

function exercises(by) {
  const kinds = Object.keys(by || {});
  if (!kinds.length) return null;
  return section("st-exercises", t("statistics.exercises"), table(
    [t("statistics.exercise"), t("statistics.right"), t("statistics.daily_streak"), t("statistics.best_streak")],
    kinds.map((k) => [t(`training.${k.replaceAll("-", "_")}`), `${by[k].correct} / ${by[k].tried}`, by[k].streak, by[k].best_streak]),
    { id: "st-exercises-table" }));
}

function recent(matches) {
  if (!matches.length) return null;
  return section("st-recent", t("statistics.recent"), table(
    [t("statistics.date"), t("statistics.opponent"), t("statistics.length"), t("statistics.result"), "PR"],
    matches.map((m) => [date(m.played), opponentName(m), m.length ? String(m.length) : t("statistics.money"),
      m.won == null ? t("statistics.open") : t(m.won ? "statistics.win" : "statistics.loss"), fmtNum(m.pr, 1)]), { id: "st-recent-table" }));
}

function badges(a) {
  return section("st-achievements", t("statistics.achievements", { n: a.reached }), h("ul", { class: "st-badges" },
    a.achievements.map((x) => h("li", { class: x.reached ? "reached" : "", dataset: { id: x.id } },
      x.condition, x.reached ? h("span", { class: "muted" }, ` · ${t("statistics.reached", { date: date(x.reached) })}`) : null))));
}

function weekly(plan) {
  const body = plan.areas.length
    ? plan.areas.map((a) => h("div", { class: "st-area" }, h("h3", {}, `${a.name} (PR ${fmtNum(a.pr, 1)})`),
      h("ul", {}, a.tasks.map((task) => h("li", { dataset: { kind: task.kind } },
        t(`statistics.task_${task.kind}`, { target: task.target, name: task.exercise || task.lesson || "" }),
        task.done == null ? null : h("span", { class: "muted" }, ` · ${t("statistics.done", { done: task.done, target: task.target })}`))))))
    : [h("p", { class: "muted", id: "st-plan-reason" }, t("statistics.plan_empty"))];
  return section("st-plan", t("statistics.plan"), h("p", { class: "muted" }, t("statistics.week", { date: plan.week })), ...body);
}
