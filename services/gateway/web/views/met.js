// The match-equity table (GET /v1/match-equity/table; the app manual's 5.4): each score's match-winning
// chance up to N-away, the post-Crawford row, and one score's take point and gammon prices
// (GET /v1/match-equity). Address: /?view=met[&length=7][&table=tavla].
import { api } from "../api.js";
import { remember } from "../shell.js";
import { t, addMessages } from "../i18n.js";
import { h, fmtPct, problemText } from "../ui.js";

addMessages({
  en: { mt_title: "Match equity", mt_length: "Up to", mt_table: "Table", mt_away: "{n}-away", mt_post: "Post-Crawford",
        mt_me: "You need", mt_them: "Opponent needs", mt_caption: "Your match-winning chance (%) by the points each side still needs",
        mt_pick: "Click a score for its take point and gammon prices.", mt_take: "Take point {tp} · gammon price {gp}",
        mt_none: "No doubling at this score." },
  de: { mt_title: "Match-Equity", mt_length: "Bis", mt_table: "Tabelle", mt_away: "{n} fehlen", mt_post: "Nach Crawford",
        mt_me: "Dir fehlen", mt_them: "Dem Gegner fehlen", mt_caption: "Deine Siegchance im Match (%) nach den Punkten, die jeder Seite noch fehlen",
        mt_pick: "Klicke auf einen Stand für Annahmepunkt und Gammon-Preise.", mt_take: "Annahmepunkt {tp} · Gammon-Preis {gp}",
        mt_none: "Bei diesem Stand wird nicht gedoppelt." },
  tr: { mt_title: "Maç eşitliği", mt_length: "En çok", mt_table: "Tablo", mt_away: "{n} kala", mt_post: "Crawford sonrası",
        mt_me: "Senin eksiğin", mt_them: "Rakibin eksiği", mt_caption: "Her tarafın kalan sayısına göre maçı kazanma şansın (%)",
        mt_pick: "Kabul noktası ve mars değerleri için bir skora tıkla.", mt_take: "Kabul noktası {tp} · mars değeri {gp}",
        mt_none: "Bu skorda katlama yok." },
});

// The view's state: m = {controller, length, table, grid, detail}.
export async function mount(el, params) {
  const m = { controller: new AbortController(), length: Math.min(25, Math.max(1, Number(params.length) || 7)),
              table: params.table === "tavla" ? "tavla" : "kazaross-xg2" };
  el.classList.add("mt-view");
  const length = h("select", { id: "mt-length", "aria-label": t("mt_length") },
    [3, 5, 7, 9, 11, 13, 15].map((n) => h("option", { value: n, selected: n === m.length }, String(n))));
  const table = h("select", { id: "mt-table", "aria-label": t("mt_table") },
    [["kazaross-xg2", "Kazaross XG2"], ["tavla", "Tavla"]].map(([v, text]) => h("option", { value: v, selected: v === m.table }, text)));
  length.addEventListener("change", () => { m.length = Number(length.value); load(m); });
  table.addEventListener("change", () => { m.table = table.value; load(m); });
  m.grid = h("div", { class: "table-scroll", id: "mt-grid" });
  m.detail = h("p", { class: "muted", id: "mt-detail", "aria-live": "polite" }, t("mt_pick"));
  el.append(h("h1", {}, t("mt_title")), h("p", {}, h("label", {}, t("mt_length"), " ", length), " ",
    h("label", {}, t("mt_table"), " ", table)), m.grid, m.detail);
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
  const head = h("tr", {}, h("th", {}, `${t("mt_me")} \\ ${t("mt_them")}`), [...Array(n).keys()].map((j) => h("th", {}, t("mt_away", { n: j + 1 }))));
  const rows = data.pre_crawford.map((row, i) => h("tr", {}, h("th", {}, t("mt_away", { n: i + 1 })),
    row.map((v, j) => h("td", { class: "num" }, h("button", { type: "button", class: "mt-cell", dataset: { me: i + 1, them: j + 1 },
      onclick: () => score(m, n, i + 1, j + 1) }, (100 * v).toFixed(1))))));
  const post = data.post_crawford
    ? [h("tr", { class: "mt-post" }, h("th", {}, t("mt_post")), data.post_crawford.map((v) => h("td", { class: "num" }, (100 * v).toFixed(1))))]
    : [];
  m.grid.replaceChildren(h("table", { class: "mt-table", id: "mt-table-grid" }, h("caption", {}, t("mt_caption")),
    h("thead", {}, head), h("tbody", {}, rows, post)));
}

async function score(m, n, me, them) {
  const q = new URLSearchParams({ length: String(n), score: String(n - me), opponent_score: String(n - them), table: m.table });
  try {
    const s = await api(`/v1/match-equity?${q}`);
    m.detail.textContent = s.take_point == null ? t("mt_none")
      : t("mt_take", { tp: fmtPct(s.take_point), gp: s.gammon_price ? s.gammon_price.player.toFixed(2) : "–" });
  } catch (e) {
    m.detail.textContent = problemText(e);
  }
}
