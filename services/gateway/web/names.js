// Names of API values in the UI's language: a rule set ("international", "tavla") and a match's opponent
// (the bot's level for a game played here, the other player's name for an imported one).
import { t } from "./i18n.js";

const LEVELS = { easy: "play.easy", medium: "play.medium", hard: "play.hard", master: "play.master", adaptive: "play_options.adaptive" };

/** A rule set's name: "International", "Tavla"; the value itself if unknown. */
export function rulesName(rules) {
  return rules === "international" || rules === "tavla" ? t(`play.${rules}`) : rules || "";
}

/** A bot level's name: "easy" in the language; the value itself if unknown. */
export function levelName(level) {
  return LEVELS[level] ? t(LEVELS[level]) : level;
}

/** An archive entry's opponent: "pulvezar (easy)" in the language for a game here, else the name in the file. */
export function opponentName(m) {
  if (!m.opponent) return "–";
  return m.source === "game" && LEVELS[m.opponent] ? `${t("play.bot")} (${levelName(m.opponent)})` : m.opponent;
}
