// The trainer in the play view: a decision whose loss reaches the game's warning threshold is held before it
// is made (a card with the reason, "Undo" or "Think again", and "Play anyway" or "<action> anyway"), the
// hint at a cube decision (the right action, each choice's equity), and the position's type.
import { t, formatNumber } from "./i18n.js";
import { h } from "./ui.js";

const signed = (x) => `${x > 0 ? "+" : ""}${formatNumber(x, 3)}`;

/** The action to send with the trainer on: with `hold: true` where the trainer values the decision (the play,
 * or the cube action at a cube decision: rolling when a double was possible, doubling, the answer to the bot's
 * double), so that one whose loss reaches the threshold comes back held (`held`: the verdict) instead of made,
 * in one request; else the action as it is. Sent again without hold ("Play anyway"), it is made with the same
 * verdict, not searched again. */
export function holdFirst(game, action) {
  if (!game.settings?.trainer || game.to_act !== 0) return action;
  const a = action.action;
  const cube = ((a === "roll" || a === "double") && game.phase === "roll" && game.actions.includes("double"))
    || (["take", "pass", "beaver"].includes(a) && game.phase === "doubled");
  return a === "play" || cube ? { ...action, hold: true } : action;
}

/** The action as the held card makes it anyway: without its hold. */
export function withoutHold(action) {
  const { hold, ...plain } = action; // eslint-disable-line no-unused-vars
  return plain;
}

/** The held decision: `held` = {verdict, action}; `on` = {undo, anyway, act(action)}. */
export function heldCard(held, on) {
  const { verdict: v, action } = held;
  const play = action.action === "play";
  const mark = v.mark || "ok";
  const buttons = h("div", { class: "buttons" },
    h("button", { type: "button", id: "pl-held-undo", class: "primary", onclick: on.undo }, t(play ? "trainer.undo" : "trainer.reconsider")),
    h("button", { type: "button", id: "pl-held-anyway", onclick: on.anyway },
      play ? t("trainer.play_anyway") : t("trainer.anyway", { action: t(`trainer.act_${action.action}`) })));
  if (action.action === "roll" && v.best === "double") // the seed: double straight from the card
    buttons.append(h("button", { type: "button", id: "pl-held-double", onclick: () => on.act({ action: "double" }) }, t("trainer.act_double")));
  return h("section", { class: `panel verdict ${mark}`, id: "pl-held", role: "alertdialog", "aria-labelledby": "pl-held-title", "aria-describedby": "pl-held-why" },
    h("h3", { id: "pl-held-title" }, t("trainer.held_title")),
    h("p", {}, h("strong", {}, t(`play.mark_${mark}`)), ` · ${played(v)}`, ` · ${t("play.best", { play: played(v, v.best) })}`,
      ` · ${t("play.loss", { loss: formatNumber(v.loss, 3) })}`),
    h("p", { id: "pl-held-why" }, v.why || ""),
    buttons);
}

const CUBE_NAMES = { "no double": "roll", double: "double", take: "take", pass: "pass", drop: "pass", beaver: "beaver" };
/** A verdict's decision in words: a play's notation, a cube action's name. */
function played(v, what = v.played) {
  const cube = CUBE_NAMES[what];
  return v.decision === "play" || !cube ? what : t(`trainer.act_${cube}`);
}

/** The hint at a cube decision: the right action and each choice's equity in your view. */
export function cubeHintPanel(c) {
  return h("section", { class: "panel", id: "pl-cube-hint" },
    h("h3", {}, t("trainer.cube_hint", { action: t(`trainer.act_${c.best}`) })),
    h("ul", {}, Object.entries(c.equities).map(([k, x]) => h("li", { class: k === c.best ? "best" : null },
      `${t(`trainer.${k.startsWith("double_") ? "eq" : "act"}_${k}`)}: ${signed(x)}`))));
}

/** The position's type in your view, as the seed shows it under the match display. */
export function positionTypeLine(type) {
  if (!type) return null;
  const kind = t(`trainer.type_${type.kind.replace("-", "_")}`);
  const k = type.side ? t(`trainer.type_${type.side}`, { k: kind }) : kind;
  return h("p", { class: "muted", id: "pl-type" }, t("trainer.type", { k }));
}
