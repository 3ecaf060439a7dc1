// Shared UI logic of the views: the element builder, the formatters, gnubg's IDs, and errors as readable text.
// Pure functions of their arguments (and the UI's language); no app state, no API calls.
import { ApiError } from "./api.js";
import { formatNumber, t } from "./i18n.js";

/**
 * An element: h("button", {type: "button", onclick: fn, class: "x"}, "text", child, [more, children]).
 * Attributes: `on<event>` with a function adds a listener; `class` sets the class; `dataset` ({k: v}) sets
 * data-* attributes; `text` sets the text content; `true` sets an empty attribute (hidden, checked,
 * selected, open); `null`, `undefined` and `false` leave the attribute out; any other value is set with
 * setAttribute as a string (so `value` is the initial value). Children: nodes, or anything else as text;
 * arrays are flattened; `null`, `undefined` and `false` are skipped. No inline styles (the CSP).
 */
export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") e.addEventListener(k.slice(2), v);
    else if (k === "class") e.className = v;
    else if (k === "dataset") Object.assign(e.dataset, v);
    else if (k === "text") e.textContent = v;
    else if (v === true) e.setAttribute(k, "");
    else e.setAttribute(k, String(v));
  }
  for (const c of children.flat(Infinity)) if (c != null && c !== false) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

/** Saves a blob as a file named `filename` (a hidden link clicked once; its URL revoked after 10 s). */
export function saveBlob(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = h("a", { href: url, download: filename, class: "an-hidden" });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// ---- formatters ---------------------------------------------------------------------------------------
// Numbers in the UI's language (i18n.js formatNumber: the decimal sign of the language); the signs as below.
const num = (x, digits) => formatNumber(Math.abs(x), digits);

/** An equity with its sign: +0.123, −0.123 (a real minus); "–" for none. */
export function fmtEq(x, digits = 3) {
  if (x == null || Number.isNaN(x)) return "–";
  return (x >= 0 ? "+" : "−") + num(x, digits);
}

/** A chance as a percentage: 12.3 %; "–" for none. */
export function fmtPct(x, digits = 1) {
  return x == null ? "–" : `${x < 0 ? "-" : ""}${num(100 * x, digits)} %`;
}

/** A number with a real minus: 1.23, −1.23; "–" for none. */
export function fmtNum(x, digits = 2) {
  return x == null || Number.isNaN(x) ? "–" : (x < 0 ? "−" : "") + num(x, digits);
}

/** An equity in the position view's tables: +0.123, -0.123 (ASCII signs); "—" for none. */
export function fmtEqAscii(x, digits = 3) {
  return x == null ? "—" : (x >= 0 ? "+" : "-") + num(x, digits);
}

/** A chance in percent without the unit (the column or the text says it): 12.3; "—" for none. */
export function fmtPctBare(x) {
  return x == null ? "—" : (x < 0 ? "-" : "") + num(100 * x, 1);
}

// ---- gnubg's IDs ----------------------------------------------------------------------------------------

function bytesOf(id, n) {
  const s = id.trim().replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(s.padEnd(Math.ceil(s.length / 4) * 4, "="));
  const out = [];
  for (let i = 0; i < n; i++) out.push(i < bin.length ? bin.charCodeAt(i) : 0);
  return out;
}

/** GNU Backgammon's Position ID as the API's arrays: {mine, theirs} (the player on roll's view, index 24 = bar). */
export function decodePositionId(id) {
  const bytes = bytesOf(id, 10);
  const sides = [new Array(25).fill(0), new Array(25).fill(0)];
  let side = 0, point = 0;
  for (let bit = 0; bit < 80 && side < 2; bit++) {
    if ((bytes[bit >> 3] >> (bit & 7)) & 1) sides[side][point]++;
    else if (++point === 25) { side++; point = 0; }
  }
  return { mine: sides[1], theirs: sides[0] };
}

/** The cube of a GNU Match ID: {value, owner: 0 | 1 | null (centred)} (owner: the match's player 0 or 1). */
export function decodeMatchCube(matchId) {
  if (!matchId) return null;
  const b = bytesOf(matchId, 9);
  const owner = (b[0] >> 4) & 3;
  return { value: 2 ** (b[0] & 15), owner: owner === 3 ? null : owner };
}

/** gnubg's Position ID of a board seen by the player on roll (mine), as the API writes it. */
export function positionId(mine, theirs) {
  const bits = [];
  for (const side of [theirs, mine]) for (const n of side) { for (let i = 0; i < n; i++) bits.push(1); bits.push(0); }
  const bytes = new Uint8Array(10);
  bits.slice(0, 80).forEach((b, i) => { if (b) bytes[i >> 3] |= 1 << (i & 7); });
  return btoa(String.fromCharCode(...bytes)).slice(0, 14);
}

// ---- errors ---------------------------------------------------------------------------------------------

/**
 * A readable message of an error: an ApiError's detail, with its problem's field errors unless they are
 * already in it (`fields: false` leaves them out); any other error's message, after "Error:" with
 * `label: true`.
 */
export function problemText(e, { fields = true, label = false } = {}) {
  if (e instanceof ApiError) {
    const list = fields ? (e.errors || []).map((x) => `${x.field}: ${x.reason}`).join("; ") : "";
    return list && !e.message.includes(list) ? `${e.message} (${list})` : e.message;
  }
  if (label) return `${t("app.error")}: ${e.message}`;
  return e?.message || String(e);
}
