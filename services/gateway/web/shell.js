// The app shell's services for the views: the address (navigate, remember) and the toast. The shell itself
// (app.js) wires the routes to the views and re-renders on navigate(); views import this module, never app.js.

let onNavigate = () => {};

/** The shell's renderer, called after navigate() changed the address (app.js sets it). */
export function whenNavigated(fn) {
  onNavigate = fn;
}

// the address's keys whose values are IDs: a position ID's base64 has "+", which a typed or shared address
// often leaves unescaped and the query decodes to a space; no ID has a space, so a space there is a "+"
const ID_KEYS = ["position"];

/** The query of an address (location.search or a "?a=b" text) as an object, IDs mended (see ID_KEYS). */
export function queryOf(search) {
  const q = Object.fromEntries(new URLSearchParams(search));
  for (const k of ID_KEYS) if (typeof q[k] === "string") q[k] = q[k].replaceAll(" ", "+");
  return q;
}

function addressOf(query) {
  const qs = new URLSearchParams(Object.entries(query).filter(([, v]) => v != null && v !== "")).toString();
  return qs ? `/?${qs}` : "/";
}

/** Change the address (and the view): navigate({view: "play", game: "g1"}); replace: no history entry. */
export function navigate(query, { replace = false } = {}) {
  const url = addressOf(query);
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  onNavigate();
}

/** Update the address without re-rendering (a view records its own state). */
export function remember(query) {
  history.replaceState(null, "", addressOf(query));
}

/** A short message in the page's status line: kind "info" or "error"; it goes after six seconds. */
export function toast(message, kind = "info") {
  const el = document.getElementById("toast");
  el.textContent = message;
  el.className = `show ${kind}`;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (el.className = ""), 6000);
}
