// Who plays in this browser, in the header: a button with the player's name (or "Who is playing?") that
// opens a dialog to pick one of the key's players or make one; until one is chosen a line under the header
// asks once ("Not now" keeps it away in this browser). The choice is players.js's currentPlayer().
import { api } from "./api.js";
import { t } from "./i18n.js";
import { currentPlayer, playerPicker, setCurrentPlayer } from "./players.js";
import { h, problemText } from "./ui.js";

const ASKED = "pulvezar.player_asked";

/** The header's player button, the dialog and the first-visit question; `onSwitch()` after a change (not
 * after a view's own quiet switch). */
export function whoPlays(onSwitch) {
  const button = h("button", { type: "button", id: "player-button", class: "player-button" });
  const dialog = h("dialog", { id: "player-dialog", "aria-labelledby": "player-dialog-title" });
  const ask = h("p", { id: "player-ask", class: "player-ask", role: "region", "aria-label": t("players.who") });
  document.querySelector("header.top .settings").prepend(button);
  document.querySelector("header.top").after(ask);
  document.body.append(dialog);
  button.addEventListener("click", () => open(dialog));
  dialog.addEventListener("close", () => dialog.replaceChildren()); // one #pl-select at a time
  window.addEventListener("pulvezar:player", (e) => {
    label(button, ask);
    if (dialog.open) dialog.close();
    if (!e.detail?.quiet) onSwitch();
  });
  label(button, ask);
  return { relabel: () => label(button, ask) };
}

/** The button's text (the player's name, fetched) and the question while nobody is chosen. */
async function label(button, ask) {
  const id = currentPlayer();
  button.textContent = t("players.who");
  button.dataset.player = id || "";
  if (id) {
    try {
      const p = await api(`/v1/players/${encodeURIComponent(id)}`);
      if (currentPlayer() === id) button.textContent = t("players.playing", { name: p.name });
    } catch (e) { // a player of another key, or deleted: the question again (not for a missing key)
      if (e.status === 404 && currentPlayer() === id) setCurrentPlayer(null);
    }
  }
  const asking = !currentPlayer() && !localStorage.getItem(ASKED);
  ask.hidden = !asking;
  if (!asking) { ask.replaceChildren(); return; }
  const choose = h("button", { type: "button", id: "player-ask-choose" }, t("players.choose"));
  const later = h("button", { type: "button", id: "player-ask-later", class: "link" }, t("players.later"));
  choose.addEventListener("click", () => open(document.getElementById("player-dialog")));
  later.addEventListener("click", () => { localStorage.setItem(ASKED, "1"); ask.hidden = true; });
  ask.replaceChildren(t("players.ask"), " ", choose, " ", later);
}

/** The dialog: the picker (pick or make; either closes it) and a close button. */
async function open(dialog) {
  const close = h("button", { type: "button", id: "player-close" }, t("app.cancel"));
  close.addEventListener("click", () => dialog.close());
  dialog.replaceChildren(h("h2", { id: "player-dialog-title" }, t("players.who")), h("p", { class: "muted" }, t("app.loading")));
  dialog.showModal();
  try {
    const picker = await playerPicker(currentPlayer(), () => dialog.close(), undefined, { inView: false });
    const ok = h("button", { type: "button", id: "player-ok" }, t("players.play_as"));
    ok.addEventListener("click", () => { setCurrentPlayer(picker.select.value); dialog.close(); });
    const buttons = h("p", {}, picker.id ? [ok, " "] : [], close);
    dialog.replaceChildren(h("h2", { id: "player-dialog-title" }, t("players.who")), picker.el, buttons);
  } catch (e) {
    dialog.replaceChildren(h("p", { class: "error-message", role: "alert" }, problemText(e)), close);
  }
}
