// The play view's further game options and the clock's display: the match clock (per match or per game),
// automatic doubles (money), the trainer's settings (warn at every error or only at blunders, hints per match)
// and a start from a position (a free game; POST /v1/games "start"); the settings the play view honours
// (settings.js: automatic roll and confirm, the clock red in its last 30 s) and the adaptive level's choice.
// Used by views/play.js only.
import { t } from "./i18n.js";
import { settings } from "./settings.js";
import { h } from "./ui.js";

/** The clock turns red below this many seconds (the seed: its last 30 s). */
export const CLOCK_LOW_S = 30;


/** The option rows of the start form and apply(body, {tavla, money}), which adds what they say to a new game's body. */
export function extraOptions() {
  const clock = h("input", { type: "checkbox", id: "pl-clock" });
  const scope = h("select", { id: "pl-clock-scope", "aria-label": t("play_options.clock") },
    h("option", { value: "match" }, t("play_options.scope_match")), h("option", { value: "game" }, t("play_options.scope_game")));
  const auto = h("input", { type: "number", id: "pl-auto-doubles", min: 0, max: 8, value: 0, class: "num-input" });
  const warn = h("select", { id: "pl-warn-at", "aria-label": t("play_options.warn") },
    h("option", { value: "0.02" }, t("play_options.warn_errors")), h("option", { value: "0.08" }, t("play_options.warn_blunders")));
  const hints = h("input", { type: "number", id: "pl-hint-limit", min: 0, max: 99, class: "num-input", placeholder: "∞" });
  const from = h("input", { id: "pl-from", class: "id-input", autocomplete: "off", spellcheck: "false" });
  const side = h("select", { id: "pl-side", "aria-label": t("play_options.side") },
    h("option", { value: "on_roll" }, t("play_options.on_roll")), h("option", { value: "opponent" }, t("play_options.opponent")));
  const clockRow = h("div", { class: "row" }, h("label", {}, clock, " ", t("play_options.clock")), " ", scope);
  const autoLabel = h("label", {}, t("play_options.auto"), " ", auto);
  const trainerRow = h("div", { class: "row" }, h("label", {}, t("play_options.warn"), " ", warn), h("label", {}, t("play_options.hints"), " ", hints));
  const fromRow = h("div", { class: "row col" }, h("label", {}, t("play_options.from"), " ", from), h("label", {}, t("play_options.side"), " ", side),
    h("p", { class: "muted" }, t("play_options.free")));
  const apply = (body, { tavla, money }) => {
    if (clock.checked) body.clock = { enabled: true, scope: scope.value };
    if (money && !tavla) body.money = { ...(body.money || {}), automatic_doubles: Math.max(0, Math.min(8, +auto.value || 0)) };
    body.warn_at = Number(warn.value);
    if (hints.value !== "") body.hint_limit = Math.max(0, Math.min(99, +hints.value));
    const id = from.value.trim();
    if (id) {
      body.start = { position: id, side: side.value };
      // an ID with a Match ID (or an XGID) says its own match length
      if (id.includes(":")) delete body.match_length;
    }
    return body;
  };
  return { rows: [clockRow, trainerRow, fromRow], autoLabel, apply };
}

function mmss(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/**
 * The clock line of a game with a clock (null without one), kept ticking: the running side's time goes down
 * after its delay, from the state's reading at `fetched` (ms). Returns {el, stop}.
 */
export function clockLine(game, fetched = Date.now()) {
  const c = game.clock;
  if (!c) return null;
  const el = h("p", { class: "status-line mono", id: "pl-clock-line", role: "timer" });
  const tick = () => {
    const spent = (Date.now() - fetched) / 1000;
    const left = c.remaining.map((x, i) => (i === c.running ? x - Math.max(0, spent - (c.delay_left ?? 0)) : x));
    el.textContent = t("play_options.clock_line", { a: mmss(left[0]), b: mmss(left[1]) });
    el.classList.toggle("clock-low", settings().clockRed && Math.min(...left) < CLOCK_LOW_S);
  };
  tick();
  const timer = c.running != null && game.status === "playing" ? setInterval(() => (el.isConnected ? tick() : clearInterval(timer)), 1000) : null;
  return { el, stop: () => timer && clearInterval(timer) };
}

/**
 * What the settings do by themselves on your turn (null: nothing): confirm a complete play (auto-confirm;
 * `complete` is the play the board's moves make, not one chosen from the list), or roll (auto-roll; with the
 * server's dice, and not while you could double: that decision stays yours); memo (the view's state: its log
 * of events grows with each new state) keeps it to once per state.
 */
export function autoAction(game, complete, memo) {
  if (!game || game.status !== "playing" || game.to_act !== 0) return null;
  const s = settings();
  const acts = game.actions || [];
  let out = null;
  if (s.autoConfirm && complete) out = { action: "play", position_id: complete.position_id };
  else if (s.autoRoll && game.dice_mode !== "client" && acts.includes("roll") && !acts.includes("double")) out = { action: "roll" };
  // once per state: a refused action is not sent again and again
  const key = out && `${game.id}|${memo.log?.length}|${game.board?.position_id}|${game.dice}|${acts}|${out.action}`;
  if (!out || memo.autoKey === key) return null;
  memo.autoKey = key;
  return out;
}

/** The level choice's "adaptive" option (the level from the player's recent grades or rating, set by the API). */
export function adaptiveOption() {
  return h("option", { value: "adaptive", text: t("play_options.adaptive"), title: t("play_options.adaptive_hint") });
}

/** An adaptive bot's line: the level its strength matches (null for another bot). */
export function adaptiveLine(game) {
  if (game.settings?.bot?.level !== "adaptive" || !game.bot?.level) return null;
  return h("p", { class: "muted", id: "pl-adaptive" }, t("play_options.adaptive_at", { level: t(`play.${game.bot.level}`) }));
}
