// The opening book (GET /v1/opening-book?rules=international|tavla): for each opening roll the best candidates
// with loss and win/gammon chances, and the best reply to each of the opponent's rolls after the chosen
// candidate; a board shows the selected play's arrows. With a player chosen, the "you" row (GET
// /v1/players/{id}/openings): their most frequent play with the roll, how often, the win rate and the gap to the
// book's best. The address carries the state: /?view=book&rules=tavla&roll=31[&player=<id>].
import { api } from "../api.js";
import { remember } from "../shell.js";
import { t } from "../i18n.js";
import { drawBoard, boardFromPosition, arrowsOfNotation } from "../board.js";
import { h, decodePositionId, fmtEq, fmtPct, problemText } from "../ui.js";
import { playerPicker } from "../players.js";


const START = "4HPwATDgc/ABMA";
const RULES = ["international", "tavla"];

function rollText(roll) {
  return roll.length === 2 ? `${roll[0]}-${roll[1]}` : roll;
}

// The view's state: b = {controller, rules, rollKey, book, el, tabs, rollsList, detail, meta}.
export async function mount(el, params) {
  const b = { controller: new AbortController(), rules: RULES.includes(params.rules) ? params.rules : "international",
              rollKey: params.roll || null, book: null, el };
  el.classList.add("bk-view");
  b.tabs = h("div", { class: "bk-rules", role: "group", "aria-label": t("book.rules") },
    RULES.map((r) => h("button", { type: "button", dataset: { rules: r }, "aria-pressed": String(r === b.rules),
      onclick: () => { if (r !== b.rules) { b.rules = r; b.rollKey = null; load(b); yours(b); } } }, t(`book.${r}`))));
  b.rollsList = h("ul", { class: "bk-rolls", id: "bk-rolls", "aria-label": t("book.rolls") });
  b.detail = h("section", { class: "bk-detail", id: "bk-detail", "aria-live": "polite" });
  b.meta = h("p", { class: "muted bk-meta", id: "bk-meta" });
  b.pickerBox = h("div", { class: "bk-player" });
  el.append(h("h1", {}, t("book.title")), b.tabs, b.pickerBox, h("h2", { class: "bk-rolls-title" }, t("book.rolls")), b.rollsList, b.detail, b.meta);
  load(b);
  try {
    const picker = await playerPicker(params.player, (id) => { b.player = id; yours(b); }, b.controller.signal);
    b.player = picker.id;
    b.pickerBox.append(picker.el);
    yours(b);
  } catch { /* no player list (no key, or the store is unreachable): the book without the "you" row */ }
  return () => b.controller.abort();
}

/** The chosen player's "you" rows of the rule set's book, then the roll shown again with its row. */
async function yours(b) {
  b.you = null;
  if (!b.player) return;
  try {
    const { rows } = await api(`/v1/players/${encodeURIComponent(b.player)}/openings?rules=${b.rules}`, { signal: b.controller.signal });
    b.you = Object.fromEntries(rows.map((r) => [r.roll, r.you]));
  } catch { return; }
  if (b.book && b.rollKey) select(b, b.rollKey, false);
}

function youLine(b, key, showPlay) {
  if (!b.you) return null;
  const you = b.you[key];
  if (!you) return h("p", { class: "muted bk-you", id: "bk-you" }, t("book.you_none", { r: rollText(key) }));
  const gap = you.gap == null ? "–" : `${fmtEq(-you.gap)}${you.gap_from && you.gap_from !== "book" ? ` ${t("book.gap_search", { ply: you.gap_from })}` : ""}`;
  return h("p", { class: "bk-you", id: "bk-you" }, h("strong", {}, `${t("book.you")}: `),
    h("button", { type: "button", class: "bk-show", onclick: () => showPlay(you.play) }, you.play), " · ",
    t("book.you_line", { n: you.times, g: you.games, r: rollText(key), w: fmtPct(you.win_rate), gap }));
}

// ---- the rule set's book: the list of opening rolls
async function load(b) {
  for (const button of b.tabs.querySelectorAll("button")) button.setAttribute("aria-pressed", String(button.dataset.rules === b.rules));
  b.rollsList.replaceChildren(h("li", { class: "muted" }, t("app.loading")));
  b.detail.replaceChildren();
  b.meta.textContent = "";
  try {
    b.book = await api(`/v1/opening-book?rules=${b.rules}`, { signal: b.controller.signal });
  } catch (e) {
    if (e.name === "AbortError") return;
    b.rollsList.replaceChildren(h("li", { class: "error-message", role: "alert" }, problemText(e)));
    return;
  }
  b.el.dataset.rules = b.rules;
  const rolls = b.book.rolls || [];
  if (!rolls.length) { b.rollsList.replaceChildren(h("li", { class: "muted" }, t("book.none"))); return; }
  b.rollsList.replaceChildren(...rolls.map((r) => h("li", {},
    h("button", { type: "button", class: "bk-roll", dataset: { roll: r.roll }, "aria-pressed": "false",
      "aria-label": `${t("book.roll", { r: rollText(r.roll) })}: ${r.candidates[0]?.play || ""}`,
      onclick: () => select(b, r.roll) },
      h("span", { class: "bk-dice" }, rollText(r.roll)),
      h("span", { class: "bk-play" }, r.candidates[0]?.play || "–")))));
  const s = b.book.settings || {};
  b.meta.textContent = t("book.meta", { ply: s.ply ?? "?", trials: s.trials ?? "?", engine: b.book.engine?.name || "",
    version: b.book.engine?.version || "", date: (b.book.generated || "").slice(0, 10) });
  const wanted = rolls.find((r) => r.roll === b.rollKey || r.roll === [...(b.rollKey || "")].reverse().join(""));
  select(b, wanted ? wanted.roll : rolls.find((r) => r.roll === "31")?.roll || rolls[0].roll, false);
}

// ---- one roll: its board, the candidates and the best replies
function select(b, key, focus = true) {
  b.rollKey = key;
  remember({ view: "book", rules: b.rules === "international" ? null : b.rules, roll: key, player: b.player || null });
  for (const button of b.rollsList.querySelectorAll("button.bk-roll")) button.setAttribute("aria-pressed", String(button.dataset.roll === key));
  const entry = b.book.rolls.find((r) => r.roll === key);
  if (!entry) return;
  const boardBox = h("div", { class: "bk-board", id: "bk-board" });
  const caption = h("p", { class: "bk-caption", id: "bk-caption" });
  const start = decodePositionId(b.book.position_id || START);
  const mark = (candidate, reply) => {
    for (const tr of candTable.querySelectorAll("tbody tr")) tr.setAttribute("aria-selected", String(tr.dataset.play === candidate));
    for (const tr of replyTable.querySelectorAll("tbody tr")) tr.setAttribute("aria-selected", String(tr.dataset.roll === reply));
  };
  let replyTable = h("table");
  const repliesBox = h("div", { id: "bk-replies-box" });
  const drawPlay = (play) => {
    const board = boardFromPosition(start.mine, start.theirs);
    board.dice = entry.dice;
    drawBoard(boardBox, board, { arrows: arrowsOfNotation(play), label: t("book.board_opening", { p: play, r: rollText(key) }) });
    caption.textContent = t("book.board_opening", { p: play, r: rollText(key) });
  };
  // the replies after a candidate: its own where the book has them (the best's always)
  const showCandidate = (c) => {
    drawPlay(c.play);
    const after = c.replies || (c === entry.candidates[0] ? entry.replies : null);
    replyTable = repliesTable(after?.replies || [], (rep) => showReply(after, rep));
    repliesBox.replaceChildren(...(after ? [h("h3", {}, t("book.replies", { p: after.play })), h("div", { class: "an-table-wrap" }, replyTable)] : []));
    mark(c.play, null);
  };
  const showReply = (after, rep) => {
    const pos = decodePositionId(after.position_id);
    const board = boardFromPosition(pos.mine, pos.theirs, { onRollIsBottom: false });
    board.dice = rep.dice;
    const label = t("book.board_reply", { p: after.play, q: rep.play, r: rollText(rep.roll) });
    drawBoard(boardBox, board, { arrows: arrowsOfNotation(rep.play), label });
    caption.textContent = label;
    mark(after.play, rep.roll);
  };
  const candTable = candidatesTable(entry, showCandidate);
  b.detail.replaceChildren(
    h("div", { class: "bk-left" }, h("h2", {}, t("book.roll", { r: rollText(key) })), boardBox, caption),
    h("div", { class: "bk-right" },
      h("h3", {}, t("book.candidates", { r: rollText(key) })), h("div", { class: "an-table-wrap" }, candTable),
      youLine(b, key, (play) => { drawPlay(play); mark(null, null); }), repliesBox));
  showCandidate(entry.candidates[0]);
  if (focus) candTable.querySelector("button")?.focus({ preventScroll: true });
}

function candidatesTable(entry, show) {
  return h("table", { class: "bk-table", id: "bk-candidates" },
    h("thead", {}, h("tr", {}, ["book.play", "book.equity", "book.loss", "book.win", "book.wg", "book.lg"].map((k) => h("th", { scope: "col" }, t(k))))),
    h("tbody", {}, entry.candidates.map((c) => h("tr", { dataset: { play: c.play }, "aria-selected": "false" },
      h("td", {}, h("button", { type: "button", class: "bk-show", onclick: () => show(c), "aria-label": `${t("book.show")} ${c.play}` }, c.play)),
      h("td", {}, fmtEq(c.equity)), h("td", {}, c.loss ? fmtEq(-c.loss) : "0"),
      h("td", {}, fmtPct(c.probabilities?.win)), h("td", {}, fmtPct(c.probabilities?.win_gammon)),
      h("td", {}, fmtPct(c.probabilities?.lose_gammon))))));
}

function repliesTable(replies, show) {
  return h("table", { class: "bk-table", id: "bk-replies" },
    h("thead", {}, h("tr", {}, ["book.reply_roll", "book.reply", "book.reply_eq"].map((k) => h("th", { scope: "col" }, t(k))))),
    h("tbody", {}, replies.map((rep) => h("tr", { dataset: { roll: rep.roll }, "aria-selected": "false" },
      h("td", {}, rollText(rep.roll)),
      h("td", {}, h("button", { type: "button", class: "bk-show", onclick: () => show(rep), "aria-label": `${t("book.show")} ${rollText(rep.roll)}: ${rep.play}` }, rep.play)),
      h("td", {}, fmtEq(rep.equity))))));
}
