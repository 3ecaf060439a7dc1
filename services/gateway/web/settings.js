// The learner's settings of this browser (issue 44; the seed's 5.9 "Einstellungen", what a web client can
// honour): automatic roll and confirm (read by the play view through play_options.js), the colour of your
// checkers, the mirrored board (home on the left) and the Turkish roll names in Tavla (read by board.js), the
// text size (a class on <html>), the clock turning red in its last 30 s (play_options.js). Kept in
// localStorage, applied at start (app.js) and at once when changed in the header's settings dialog.
import { t } from "./i18n.js";
import { h } from "./ui.js";

const KEY = "pulvezar.settings";
/** The defaults: the web client keeps its explicit roll and confirm steps unless they are turned on. */
export const DEFAULTS = Object.freeze({
  autoRoll: false, autoConfirm: false, checkers: "light", mirror: false, textSize: "system", clockRed: true, rollNames: true,
});
const CHOICES = { checkers: ["light", "dark"], textSize: ["system", "normal", "large", "xlarge"] };
const SWITCHES = ["autoRoll", "autoConfirm", "mirror", "clockRed", "rollNames"];

/** The traditional Turkish name of a roll [a, b] (null without dice): the catalogs' settings.roll_<high><low>,
 * Turkish in every language (the seed: these names stay Turkish in every language). */
export function rollName(dice) {
  if (!dice || !dice[0] || !dice[1]) return null;
  const [hi, lo] = dice[0] >= dice[1] ? dice : [dice[1], dice[0]];
  return t(`settings.roll_${hi}${lo}`);
}

/** The settings: what was saved, checked, over the defaults. */
export function settings() {
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem(KEY) || "{}") || {}; } catch { /* unreadable: the defaults */ }
  const out = { ...DEFAULTS };
  for (const k of SWITCHES) if (typeof saved[k] === "boolean") out[k] = saved[k];
  for (const [k, values] of Object.entries(CHOICES)) if (values.includes(saved[k])) out[k] = saved[k];
  return out;
}

/** Saves changes (merged into the settings) and applies them. */
export function saveSettings(changes) {
  const next = { ...settings(), ...changes };
  localStorage.setItem(KEY, JSON.stringify(next));
  applySettings(next);
  return next;
}

/** Applies what the page shows itself: the text size (html.text-<size>; "system" follows the browser's). */
export function applySettings(s = settings()) {
  const root = document.documentElement;
  for (const size of CHOICES.textSize) root.classList.toggle(`text-${size}`, s.textSize === size);
}

function field(s, key, onChange) {
  if (SWITCHES.includes(key)) {
    const box = h("input", { type: "checkbox", id: `set-${key}`, checked: s[key] });
    box.addEventListener("change", () => onChange({ [key]: box.checked }));
    return h("label", { class: "row", for: `set-${key}` }, box, h("span", {}, t(`settings.${key}`)));
  }
  const select = h("select", { id: `set-${key}` },
    CHOICES[key].map((v) => h("option", { value: v, selected: s[key] === v, text: t(`settings.${key}_${v}`) })));
  select.addEventListener("change", () => onChange({ [key]: select.value }));
  return h("label", { class: "row", for: `set-${key}` }, h("span", {}, t(`settings.${key}`)), select);
}

/** The header's settings button: its dialog applies each change at once and calls onChange (the view again). */
export function settingsButton(onChange) {
  const button = h("button", { type: "button", id: "settings-button", dataset: { i18n: "settings.button" } }, t("settings.button"));
  button.addEventListener("click", () => {
    const change = (c) => { saveSettings(c); onChange(); };
    const s = settings();
    const dialog = h("dialog", { id: "settings-dialog", "aria-labelledby": "settings-title" },
      h("form", { method: "dialog" },
        h("h2", { id: "settings-title" }, t("settings.title")),
        h("fieldset", {}, h("legend", {}, t("settings.play")), field(s, "autoRoll", change), field(s, "autoConfirm", change),
          field(s, "clockRed", change), field(s, "rollNames", change)),
        h("fieldset", {}, h("legend", {}, t("settings.look")), field(s, "checkers", change), field(s, "mirror", change),
          field(s, "textSize", change)),
        h("menu", {}, h("button", { value: "close", id: "settings-close" }, t("settings.close")))));
    dialog.addEventListener("close", () => { dialog.remove(); button.focus(); });
    document.body.append(dialog);
    dialog.showModal();
  });
  return button;
}
