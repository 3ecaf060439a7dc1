// The position library (GET /v1/library/positions with q, rules and cursor; PATCH and DELETE
// /v1/library/positions/{id}): search by name, tag, note, date or ID, a rule-set filter, pages of 50, each
// position with a small board, its type and date; name, tags and note edited in place; a link opens it in
// the position view; "add to cards" makes a card of it for the player of this browser (POST
// /v1/players/{id}/cards). The "Matches" tab is the archive of the player of this browser (GET
// /v1/players/{id}/matches): won, lost and not ended, each with its PR once analysed, to replay or to open
// its analysis. Address: /?view=library[&q=][&rules=][&tab=matches].
import { api } from "../api.js";
import { navigate, remember, toast } from "../shell.js";
import { t, formatDate } from "../i18n.js";
import { drawBoard, boardFromPosition } from "../board.js";
import { h, decodePositionId, fmtNum, problemText } from "../ui.js";
import { currentPlayer } from "../players.js";
import { opponentName, rulesName } from "../names.js";


const PAGE = 50;

// The view's state: b = {controller, q, rules, list, more, count, shown}.
export async function mount(el, params) {
  const b = { controller: new AbortController(), q: params.q || "", rules: ["international", "tavla"].includes(params.rules) ? params.rules : "" };
  el.classList.add("lb-view");
  const q = h("input", { type: "search", id: "lb-q", value: b.q, placeholder: t("library.search_hint"), "aria-label": t("library.search") });
  const rules = h("select", { id: "lb-rules", "aria-label": t("library.rules") },
    [["", "library.all"], ["international", "library.international"], ["tavla", "library.tavla"]].map(([v, k]) =>
      h("option", { value: v, selected: v === b.rules }, t(k))));
  const form = h("form", { class: "lb-search", role: "search" }, q, " ", rules, " ", h("button", { type: "submit", id: "lb-go" }, t("library.search")));
  form.addEventListener("submit", (e) => { e.preventDefault(); b.q = q.value.trim(); b.rules = rules.value; load(b); });
  rules.addEventListener("change", () => { b.rules = rules.value; load(b); });
  b.list = h("ul", { class: "lb-list", id: "lb-list" });
  b.count = h("p", { class: "muted", id: "lb-count" });
  b.more = h("button", { type: "button", id: "lb-more", hidden: true }, t("library.more"));
  b.more.addEventListener("click", () => page(b));
  const positions = h("div", { id: "lb-positions" }, form, b.count, b.list, h("p", {}, b.more));
  const matches = h("div", { id: "lb-matches", hidden: true });
  const tabs = h("div", { class: "dy-tabs", role: "group", "aria-label": t("library.title") },
    [["positions", "library.tab_positions"], ["matches", "library.tab_matches"]].map(([tab, key]) =>
      h("button", { type: "button", id: `lb-tab-${tab}`, dataset: { tab }, onclick: () => show(tab) }, t(key))));
  const show = (tab) => {
    b.tab = tab;
    for (const x of tabs.querySelectorAll("button")) x.setAttribute("aria-pressed", String(x.dataset.tab === tab));
    positions.hidden = tab !== "positions";
    matches.hidden = tab !== "matches";
    if (tab === "matches") archive(b, matches); else load(b);
  };
  el.append(h("h1", {}, t("library.title")), tabs, positions, matches);
  show(params.tab === "matches" ? "matches" : "positions");
  return () => b.controller.abort();
}

// ---- the "Matches" tab: the player's archive, won, lost and not ended
async function archive(b, box) {
  remember({ view: "library", tab: "matches" });
  const player = currentPlayer();
  if (!player) { box.replaceChildren(h("p", { class: "muted", id: "lb-no-player" }, t("library.no_player"))); return; }
  box.replaceChildren(h("p", { class: "muted" }, t("app.loading")));
  const q = encodeURIComponent(player);
  let found, running;
  try {
    // the archive holds ended games and imports; the games still in play come from the games API
    [found, running] = await Promise.all([api(`/v1/players/${q}/matches?limit=200`, { signal: b.controller.signal }),
      api(`/v1/games?status=playing&player=${q}&limit=50`, { signal: b.controller.signal })]);
  } catch (e) {
    if (e.name !== "AbortError") box.replaceChildren(h("p", { class: "error-message", role: "alert" }, problemText(e)));
    return;
  }
  const all = [...running.games.map(playing), ...found.matches];
  if (!all.length) { box.replaceChildren(h("p", { class: "muted", id: "lb-no-matches" }, t("library.no_matches"))); return; }
  const groups = [["won", (m) => m.won === true], ["lost", (m) => m.won === false], ["open", (m) => m.won == null]];
  box.replaceChildren(...groups.flatMap(([name, keep]) => {
    const these = all.filter(keep);
    return these.length ? [h("section", { class: "lb-group", dataset: { group: name } }, h("h2", {}, t(`library.matches_${name}`, { n: these.length })),
      h("ul", { class: "lb-list lb-matches-list" }, these.map(matchRow)))] : [];
  }));
}

/** A game still in play (GET /v1/games) as an archive entry, not ended. */
function playing(g) {
  return { id: `game:${g.id}`, source: "game", opponent: g.bot?.level, length: g.match_length, rules: g.rules, game_id: g.id,
    won: null, pr: null, analysis: null, played: g.updated, running: true };
}

function matchRow(m) {
  const what = t("library.match_row", { opponent: opponentName(m), length: m.length ? String(m.length) : t("library.money"),
    rules: rulesName(m.rules), date: formatDate(m.played, { dateStyle: "medium" }) });
  const replay = m.running ? h("button", { type: "button", class: "lb-continue", onclick: () => navigate({ view: "play", game: m.game_id }) }, t("home.continue"))
    : m.game_id ? h("button", { type: "button", class: "lb-replay", onclick: () => navigate({ view: "replay", game: m.game_id }) }, t("library.replay")) : null;
  const analysis = m.analysis ? h("button", { type: "button", class: "lb-analysis", onclick: () => navigate({ view: "analysis", job: m.analysis }) }, t("library.analysis")) : null;
  return h("li", { class: "lb-match", dataset: { id: m.id, source: m.source } },
    h("div", { class: "lb-text" }, h("strong", {}, what),
      m.source === "import" ? h("span", { class: "lb-tag" }, t("library.imported")) : null,
      m.running ? null : h("p", { class: "muted" }, m.pr == null ? t("library.not_analysed") : t("library.pr", { pr: fmtNum(m.pr, 1) })),
      h("div", { class: "buttons" }, replay, analysis)));
}

async function load(b) {
  remember({ view: "library", q: b.q, rules: b.rules, tab: null });
  b.cursor = null;
  b.shown = 0;
  b.list.replaceChildren();
  await page(b);
}

async function page(b) {
  const qs = new URLSearchParams({ limit: String(PAGE) });
  if (b.q) qs.set("q", b.q);
  if (b.rules) qs.set("rules", b.rules);
  if (b.cursor) qs.set("cursor", b.cursor);
  let found;
  try {
    found = await api(`/v1/library/positions?${qs}`, { signal: b.controller.signal });
  } catch (e) {
    if (e.name !== "AbortError") b.list.replaceChildren(h("li", { class: "error-message", role: "alert" }, problemText(e)));
    return;
  }
  for (const entry of found.positions) b.list.append(row(b, entry));
  b.shown += found.positions.length;
  b.cursor = found.next_cursor;
  b.more.hidden = !b.cursor;
  b.count.textContent = b.shown ? t("library.count", { n: b.shown }) : t("library.none");
}

function row(b, entry) {
  const board = h("div", { class: "lb-board" });
  const arrays = decodePositionId(entry.position_id);
  const drawn = boardFromPosition(arrays.mine, arrays.theirs);
  drawn.dice = entry.dice || null;
  drawBoard(board, drawn, { small: true, label: entry.name || entry.position_id });
  const name = h("strong", { class: "lb-name" }, entry.name || entry.position_id);
  const tags = h("span", { class: "lb-tags" }, (entry.tags || []).map((x) => h("span", { class: "lb-tag" }, x)));
  const note = h("p", { class: "lb-note muted" }, entry.note || "");
  const open = h("button", { type: "button", class: "lb-open" }, t("library.open"));
  open.addEventListener("click", () => navigate({ position: entry.match_id ? `${entry.position_id}:${entry.match_id}` : entry.position_id,
    dice: entry.dice ? `${entry.dice[0]}${entry.dice[1]}` : null }));
  const edit = h("button", { type: "button", class: "lb-edit" }, t("library.edit"));
  const del = h("button", { type: "button", class: "lb-delete" }, t("library.delete"));
  const li = h("li", { class: "lb-entry", dataset: { id: entry.id } }, board,
    h("div", { class: "lb-text" }, name, " ", tags,
      h("p", { class: "muted" }, [entry.rules, entry.kind, entry.date].filter(Boolean).join(" · ")), note,
      h("div", { class: "buttons" }, open, edit, del, ...toCards(entry))));
  edit.addEventListener("click", () => li.querySelector(".lb-text").append(editor(entry, li, name, tags, note)));
  del.addEventListener("click", async () => {
    if (!window.confirm(t("library.confirm", { name: entry.name || entry.position_id }))) return;
    try {
      await api(`/v1/library/positions/${entry.id}`, { method: "DELETE" });
      li.remove();
      toast(t("library.deleted"));
    } catch (e) {
      toast(problemText(e), "error");
    }
  });
  return li;
}

/** "Add to cards" for the player of this browser (POST /v1/players/{id}/cards with the entry and a roll:
 *  its dice, else the roll typed beside the button); nothing without a player. */
function toCards(entry) {
  const player = currentPlayer();
  if (!player) return [];
  const roll = entry.dice ? null : h("input", { class: "lb-roll", size: 3, maxlength: 3, inputmode: "numeric", placeholder: "31",
    pattern: "[1-6]-?[1-6]", "aria-label": t("cards.roll") });
  const add = h("button", { type: "button", class: "lb-card" }, t("cards.add"));
  add.addEventListener("click", async () => {
    const body = { position: entry.id };
    if (roll) {
      const m = /^([1-6])-?([1-6])$/.exec(roll.value.trim());
      if (!m) { toast(t("cards.roll_needed"), "error"); roll.focus(); return; }
      body.dice = [+m[1], +m[2]];
    }
    add.disabled = true;
    try {
      await api(`/v1/players/${encodeURIComponent(player)}/cards`, { method: "POST", body });
      toast(t("cards.added"));
    } catch (e) {
      toast(problemText(e), "error");
    } finally {
      add.disabled = false;
    }
  });
  return roll ? [roll, add] : [add];
}

function editor(entry, li, name, tags, note) {
  const nameIn = h("input", { class: "lb-name-in", value: entry.name || "", maxlength: 120, "aria-label": t("library.name") });
  const tagsIn = h("input", { class: "lb-tags-in", value: (entry.tags || []).join(", "), "aria-label": t("library.tags") });
  const noteIn = h("textarea", { class: "lb-note-in", maxlength: 2000, "aria-label": t("library.note") }, entry.note || "");
  const message = h("span", { class: "error-message", role: "alert" });
  const cancel = h("button", { type: "button" }, t("library.cancel"));
  const form = h("form", { class: "lb-editor" },
    h("label", {}, t("library.name"), " ", nameIn), h("label", {}, t("library.tags"), " ", tagsIn), h("label", {}, t("library.note"), " ", noteIn),
    h("div", { class: "buttons" }, h("button", { type: "submit", class: "lb-save" }, t("library.save")), cancel, message));
  cancel.addEventListener("click", () => form.remove());
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = { name: nameIn.value.trim(), tags: tagsIn.value.split(",").map((x) => x.trim()).filter(Boolean), note: noteIn.value };
    try {
      const saved = await api(`/v1/library/positions/${entry.id}`, { method: "PATCH", body });
      Object.assign(entry, saved);
      name.textContent = saved.name || saved.position_id;
      tags.replaceChildren(...(saved.tags || []).map((x) => h("span", { class: "lb-tag" }, x)));
      note.textContent = saved.note || "";
      form.remove();
      toast(t("library.saved"));
    } catch (err) {
      message.textContent = problemText(err);
    }
  });
  return form;
}
