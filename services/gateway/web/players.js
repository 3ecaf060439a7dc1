// The player of this browser: every attributable call carries currentPlayer() (games, daily attempts,
// exercises, lessons, imports); the learner's views (statistics, cards) pick one with playerPicker (GET
// /v1/players, POST /v1/players to make one). The choice is kept in this browser (and a view's ?player=);
// a change is announced as the window's "pulvezar:player" event (the header shows who plays).
import { api } from "./api.js";
import { t } from "./i18n.js";
import { h, problemText } from "./ui.js";
import { toast } from "./shell.js";

const STORAGE = "pulvezar.player";

/** The id of the player this browser plays as, or null (none chosen yet). */
export function currentPlayer() {
  return localStorage.getItem(STORAGE) || null;
}

/**
 * Play as `id` from now on (null: nobody); the window hears "pulvezar:player" with detail {id, quiet}:
 * the header shows the name, and re-draws the view unless `quiet` (a view that switched by itself).
 */
export function setCurrentPlayer(id, { quiet = false } = {}) {
  const before = currentPlayer();
  if (id) localStorage.setItem(STORAGE, id);
  else localStorage.removeItem(STORAGE);
  if (before !== (id || null)) window.dispatchEvent(new CustomEvent("pulvezar:player", { detail: { id: id || null, quiet } }));
}

/**
 * The picker: `playerPicker(wanted, onChange, signal)` resolves to {el, id, select}; `onChange(id)` is called
 * when the user picks or makes a player, who then plays in this browser. `wanted`: the address's player, else
 * the one chosen here. A view's picker (`inView`) makes the shown player the current one, quietly; the
 * header's dialog (inView false) changes nothing until the user picks.
 */
export async function playerPicker(wanted, onChange, signal, { inView = true } = {}) {
  const { players } = await api("/v1/players?limit=200", { signal });
  const chosen = [wanted, localStorage.getItem(STORAGE)].find((id) => id && players.some((p) => p.id === id))
    || players[0]?.id || null;
  const select = h("select", { id: "pl-select" },
    players.map((p) => h("option", { value: p.id, selected: p.id === chosen }, p.name)));
  select.addEventListener("change", () => pick(select.value));
  const name = h("input", { id: "pl-name", maxlength: 100, required: true, autocomplete: "off" });
  const message = h("span", { class: "error-message", id: "pl-error", role: "alert" });
  const form = h("form", { class: "pl-new" },
    h("label", { for: "pl-name" }, t("players.new")), " ", name, " ", h("button", { type: "submit", id: "pl-make" }, t("players.make")),
    " ", message);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const made = await api("/v1/players", { method: "POST", body: { name: name.value } });
      pick(made.id);
    } catch (err) {
      message.textContent = problemText(err);
    }
  });
  function pick(id) {
    setCurrentPlayer(id, { quiet: inView });
    onChange(id);
  }
  const el = h("div", { class: "pl-picker" },
    players.length ? h("label", {}, t("players.player"), " ", select) : h("p", { class: "muted", id: "pl-none" }, t("players.none")),
    form);
  if (chosen && inView) setCurrentPlayer(chosen, { quiet: true });
  return { el, id: chosen, select };
}

/**
 * A view of one player: adds `cls`, the `title` heading, the picker and the body (`#bodyId`) to `el`; the
 * state s = {controller, el, body, player, ...state}; `show(s)` draws the chosen player's page (again
 * whenever the picker changes), `first(s)` the first time. Resolves to the view's cleanup.
 */
export async function playerView(el, params, { cls, title, bodyId, state = {} }, show, first = show) {
  const s = { controller: new AbortController(), el, body: h("div", { id: bodyId, "aria-live": "polite" }), ...state };
  const cleanup = () => s.controller.abort();
  el.classList.add(cls);
  el.append(h("h1", {}, t(title)));
  try {
    const picker = await playerPicker(params.player, (id) => { s.player = id; draw(show, s); }, s.controller.signal);
    s.player = picker.id;
    el.append(picker.el, s.body);
  } catch (e) {
    if (e.name !== "AbortError") el.append(h("p", { class: "error-message", role: "alert" }, problemText(e)));
    return cleanup;
  }
  draw(first, s); // not awaited: the view's cleanup is returned at once, so that a redraw aborts this load
  return cleanup;
}

/** Draws the player's page with `fn(s)`, its promise caught: an abort (the view left or redrawn while it loads)
 *  is no error; another shows in the body. */
async function draw(fn, s) {
  try {
    await fn(s);
  } catch (e) {
    if (e.name === "AbortError" || s.controller.signal.aborted) return;
    s.body.replaceChildren(h("p", { class: "error-message", role: "alert" }, problemText(e)));
  }
}

/** Save a position to the library (POST /v1/library/positions) for the player of this browser, the
 *  ``button`` disabled meanwhile; the outcome as a toast (``problem``: how an error is put in words). */
export async function saveToLibrary(body, button, problem = problemText) {
  const player = currentPlayer();
  if (player) body = { ...body, player };
  button.disabled = true;
  try {
    const out = await api("/v1/library/positions", { method: "POST", body });
    toast(t(out.created ? "library.added" : "library.already", { name: out.name }));
  } catch (e) {
    toast(problem(e), "error");
  } finally {
    button.disabled = false;
  }
}
