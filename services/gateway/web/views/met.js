// The match-equity table (GET /v1/match-equity/table; the app manual's 5.4): each score's match-winning
// chance up to N-away, the post-Crawford row, and one score's take point and gammon prices
// (GET /v1/match-equity). Address: /?view=met[&length=7][&table=tavla].
import { api } from "../api.js";
import { remember } from "../shell.js";
import { t } from "../i18n.js";
import { h, fmtPct, problemText } from "../ui.js";


// The view's state: m = {controller, length, table, grid, detail}.
export async function mount(el, params) {
  const m = { controller: new AbortController(), length: Math.min(25, Math.max(1, Number(params.length) || 7)),
              table: params.table === "tavla" ? "tavla" : "kazaross-xg2" };
  el.classList.add("mt-view");
  const length = h("select", { id: "mt-length", "aria-label": t("met.length") },
    [3, 5, 7, 9, 11, 13, 15].map((n) => h("option", { value: n, selected: n === m.length }, String(n))));
  const table = h("select", { id: "mt-table", "aria-label": t("met.table") },
    [["kazaross-xg2", "Kazaross XG2"], ["tavla", "Tavla"]].map(([v, text]) => h("option", { value: v, selected: v === m.table }, text)));
  length.addEventListener("change", () => { m.length = Number(length.value); load(m); });
  table.addEventListener("change", () => { m.table = table.value; load(m); });
  m.grid = h("div", { class: "table-scroll", id: "mt-grid" });
  m.detail = h("p", { class: "muted", id: "mt-detail", "aria-live": "polite" }, t("met.pick"));
  el.append(h("h1", {}, t("met.title")), h("p", {}, h("label", {}, t("met.length"), " ", length), " ",
    h("label", {}, t("met.table"), " ", table)), m.grid, m.detail);
  load(m);
  return () => m.controller.abort();
}

async function load(m) {
  remember({ view: "met", length: m.length === 7 ? null : m.length, table: m.table === "tavla" ? "tavla" : null });
  let data;
  try {
    data = await api(`/v1/match-equity/table?length=${m.length}&table=${m.table}`, { signal: m.controller.signal });
  } catch (e) {
    if (e.name !== "AbortError") m.grid.replaceChildren(h("p", { class: "error-message", role: "alert" }, problemText(e)));
    return;
  }
  const n = data.length;
  const head = h("tr", {}, h("th", {}, `${t("met.me")} \\ ${t("met.them")}`), [...Array(n).keys()].map((j) => h("th", {}, t("met.away", { n: j + 1 }))));
  const rows = data.pre_crawford.map((row, i) => h("tr", {}, h("th", {}, t("met.away", { n: i + 1 })),
    row.map((v, j) => h("td", { class: "num" }, h("button", { type: "button", class: "mt-cell", dataset: { me: i + 1, them: j + 1 },
      onclick: () => score(m, n, i + 1, j + 1) }, (100 * v).toFixed(1))))));
  const post = data.post_crawford
    ? [h("tr", { class: "mt-post" }, h("th", {}, t("met.post")), data.post_crawford.map((v) => h("td", { class: "num" }, (100 * v).toFixed(1))))]
    : [];
  m.grid.replaceChildren(h("table", { class: "mt-table", id: "mt-table-grid" }, h("caption", {}, t("met.caption")),
    h("thead", {}, head), h("tbody", {}, rows, post)));
}

async function score(m, n, me, them) {
  const q = new URLSearchParams({ length: String(n), score: String(n - me), opponent_score: String(n - them), table: m.table });
  try {
    const s = await api(`/v1/match-equity?${q}`);
    m.detail.textContent = s.take_point == null ? t("met.none")
      : t("met.take", { tp: fmtPct(s.take_point), gp: s.gammon_price ? s.gammon_price.player.toFixed(2) : "–" });
  } catch (e) {
    m.detail.textContent = problemText(e);
  }
}
