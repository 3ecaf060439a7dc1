// The position library (GET /v1/library/positions with q, rules and cursor; PATCH and DELETE
// /v1/library/positions/{id}): search by name, tag, note, date or ID, a rule-set filter, pages of 50, each
// position with a small board, its type and date; name, tags and note edited in place; a link opens it in
// the position view. Address: /?view=library[&q=][&rules=].
import { api } from "../api.js";
import { navigate, remember, toast } from "../shell.js";
import { t, addMessages } from "../i18n.js";
import { drawBoard, boardFromPosition } from "../board.js";
import { h, decodePositionId, problemText } from "../ui.js";

addMessages({
  en: {
    lb_title: "Library", lb_search: "Search", lb_search_hint: "name, tag, note, date or ID", lb_rules: "Rule set",
    lb_all: "All", lb_international: "International", lb_tavla: "Tavla", lb_more: "More", lb_none: "No saved position matches.",
    lb_open: "Open", lb_edit: "Edit", lb_delete: "Delete", lb_save: "Save", lb_cancel: "Cancel", lb_name: "Name",
    lb_tags: "Tags (comma separated)", lb_note: "Note", lb_saved: "Saved.", lb_deleted: "Deleted.",
    lb_confirm: "Delete “{name}” from the library?", lb_count: "{n} shown",
  },
  de: {
    lb_title: "Bibliothek", lb_search: "Suchen", lb_search_hint: "Name, Schlagwort, Notiz, Datum oder ID", lb_rules: "Regeln",
    lb_all: "Alle", lb_international: "International", lb_tavla: "Tavla", lb_more: "Mehr", lb_none: "Keine gespeicherte Stellung passt.",
    lb_open: "Öffnen", lb_edit: "Bearbeiten", lb_delete: "Löschen", lb_save: "Speichern", lb_cancel: "Abbrechen", lb_name: "Name",
    lb_tags: "Schlagwörter (durch Komma getrennt)", lb_note: "Notiz", lb_saved: "Gespeichert.", lb_deleted: "Gelöscht.",
    lb_confirm: "„{name}“ aus der Bibliothek löschen?", lb_count: "{n} angezeigt",
  },
  tr: {
    lb_title: "Kütüphane", lb_search: "Ara", lb_search_hint: "ad, etiket, not, tarih veya kimlik", lb_rules: "Kurallar",
    lb_all: "Tümü", lb_international: "Uluslararası", lb_tavla: "Tavla", lb_more: "Daha fazla", lb_none: "Eşleşen kayıtlı pozisyon yok.",
    lb_open: "Aç", lb_edit: "Düzenle", lb_delete: "Sil", lb_save: "Kaydet", lb_cancel: "İptal", lb_name: "Ad",
    lb_tags: "Etiketler (virgülle ayrılmış)", lb_note: "Not", lb_saved: "Kaydedildi.", lb_deleted: "Silindi.",
    lb_confirm: "“{name}” kütüphaneden silinsin mi?", lb_count: "{n} gösteriliyor",
  },
});

const PAGE = 50;

// The view's state: b = {controller, q, rules, list, more, count, shown}.
export async function mount(el, params) {
  const b = { controller: new AbortController(), q: params.q || "", rules: ["international", "tavla"].includes(params.rules) ? params.rules : "" };
  el.classList.add("lb-view");
  const q = h("input", { type: "search", id: "lb-q", value: b.q, placeholder: t("lb_search_hint"), "aria-label": t("lb_search") });
  const rules = h("select", { id: "lb-rules", "aria-label": t("lb_rules") },
    [["", "lb_all"], ["international", "lb_international"], ["tavla", "lb_tavla"]].map(([v, k]) =>
      h("option", { value: v, selected: v === b.rules }, t(k))));
  const form = h("form", { class: "lb-search", role: "search" }, q, " ", rules, " ", h("button", { type: "submit", id: "lb-go" }, t("lb_search")));
  form.addEventListener("submit", (e) => { e.preventDefault(); b.q = q.value.trim(); b.rules = rules.value; load(b); });
  rules.addEventListener("change", () => { b.rules = rules.value; load(b); });
  b.list = h("ul", { class: "lb-list", id: "lb-list" });
  b.count = h("p", { class: "muted", id: "lb-count" });
  b.more = h("button", { type: "button", id: "lb-more", hidden: true }, t("lb_more"));
  b.more.addEventListener("click", () => page(b));
  el.append(h("h1", {}, t("lb_title")), form, b.count, b.list, h("p", {}, b.more));
  load(b);
  return () => b.controller.abort();
}

async function load(b) {
  remember({ view: "library", q: b.q, rules: b.rules });
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
  b.count.textContent = b.shown ? t("lb_count", { n: b.shown }) : t("lb_none");
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
  const open = h("button", { type: "button", class: "lb-open" }, t("lb_open"));
  open.addEventListener("click", () => navigate({ position: entry.match_id ? `${entry.position_id}:${entry.match_id}` : entry.position_id,
    dice: entry.dice ? `${entry.dice[0]}${entry.dice[1]}` : null }));
  const edit = h("button", { type: "button", class: "lb-edit" }, t("lb_edit"));
  const del = h("button", { type: "button", class: "lb-delete" }, t("lb_delete"));
  const li = h("li", { class: "lb-entry", dataset: { id: entry.id } }, board,
    h("div", { class: "lb-text" }, name, " ", tags,
      h("p", { class: "muted" }, [entry.rules, entry.kind, entry.date].filter(Boolean).join(" · ")), note,
      h("div", { class: "buttons" }, open, edit, del)));
  edit.addEventListener("click", () => li.querySelector(".lb-text").append(editor(entry, li, name, tags, note)));
  del.addEventListener("click", async () => {
    if (!window.confirm(t("lb_confirm", { name: entry.name || entry.position_id }))) return;
    try {
      await api(`/v1/library/positions/${entry.id}`, { method: "DELETE" });
      li.remove();
      toast(t("lb_deleted"));
    } catch (e) {
      toast(problemText(e), "error");
    }
  });
  return li;
}

function editor(entry, li, name, tags, note) {
  const nameIn = h("input", { class: "lb-name-in", value: entry.name || "", maxlength: 120, "aria-label": t("lb_name") });
  const tagsIn = h("input", { class: "lb-tags-in", value: (entry.tags || []).join(", "), "aria-label": t("lb_tags") });
  const noteIn = h("textarea", { class: "lb-note-in", maxlength: 2000, "aria-label": t("lb_note") }, entry.note || "");
  const message = h("span", { class: "error-message", role: "alert" });
  const cancel = h("button", { type: "button" }, t("lb_cancel"));
  const form = h("form", { class: "lb-editor" },
    h("label", {}, t("lb_name"), " ", nameIn), h("label", {}, t("lb_tags"), " ", tagsIn), h("label", {}, t("lb_note"), " ", noteIn),
    h("div", { class: "buttons" }, h("button", { type: "submit", class: "lb-save" }, t("lb_save")), cancel, message));
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
      toast(t("lb_saved"));
    } catch (err) {
      message.textContent = problemText(err);
    }
  });
  return form;
}
