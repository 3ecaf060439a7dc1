// Links (docs/web.md "Links"): the text a user pastes -- a pulvezar:// link, an address of this app, a position
// ID, XGID, OGID, a game ID or a date -- mapped onto this app's address, and the header's box that opens it.
import { t } from "./i18n.js";
import { navigate, queryOf, toast } from "./shell.js";
import { h } from "./ui.js";

const GAME_ID = /^g[0-9a-f]{24}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The address a pasted text opens, or null: pulvezar://konum|position/<ID>[:<MatchID>][?dice=31],
 * pulvezar://game/<id>, pulvezar://match/<id>, pulvezar://daily/<date>[?rules=&kind=], an address of this app
 * (its query is kept), a game ID, a date (its daily), else any other text as a position ID, XGID or OGID.
 */
export function linkQuery(text) {
  const s = text.trim();
  if (!s || s.length > 2000) return null;
  const m = /^pulvezar:\/\/([a-z]+)\/([^?#]*)(?:\?([^#]*))?/i.exec(s);
  if (m) {
    const kind = m[1].toLowerCase();
    let id;
    try { id = decodeURIComponent(m[2]); } catch { return null; }
    const extra = Object.fromEntries(new URLSearchParams(m[3] || ""));
    if (!id) return null;
    if (kind === "konum" || kind === "position") return { position: id, dice: extra.dice };
    if (kind === "game") return { view: "play", game: id };
    if (kind === "match") return { view: "replay", game: id };
    if (kind === "daily" && DATE.test(id)) return { view: "daily", date: id, rules: extra.rules, kind: extra.kind };
    return null;
  }
  if (/^https?:\/\//i.test(s)) {
    try {
      const u = new URL(s);
      return u.origin === location.origin ? queryOf(u.search) : null;
    } catch { return null; }
  }
  if (s.startsWith("/?")) return queryOf(s.slice(2));
  if (GAME_ID.test(s)) return { view: "play", game: s };
  if (DATE.test(s)) return { view: "daily", date: s };
  if (/\s/.test(s.replace(/^XGID=/, ""))) return null;
  return { position: s };
}

/** The header's box: paste a link or ID, Enter (or the button) opens it; an unknown text is an error toast. */
export function openBox() {
  const input = h("input", { id: "open-input", type: "search", autocomplete: "off", maxlength: 2000,
    placeholder: t("links.placeholder"), "aria-label": t("links.label") });
  const button = h("button", { type: "submit", id: "open-button" }, t("links.open"));
  const form = h("form", { id: "open-form", class: "open-form", role: "search" }, input, button);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const q = linkQuery(input.value);
    if (!q) { toast(t("links.unknown"), "error"); return; }
    input.value = "";
    navigate(q);
  });
  document.querySelector("header.top .settings").prepend(form);
  return () => {
    input.placeholder = t("links.placeholder");
    input.setAttribute("aria-label", t("links.label"));
    button.textContent = t("links.open");
  };
}
