// The play view's further game options and the clock's display: the match clock (per match or per game),
// automatic doubles (money), the trainer's settings (warn at every error or only at blunders, hints per match)
// and a start from a position (a free game; POST /v1/games "start"). Used by views/play.js only.
import { t, addMessages } from "./i18n.js";
import { h } from "./ui.js";

addMessages({
  en: { po_clock: "Match clock", po_scope_match: "one budget for the match", po_scope_game: "a budget per game",
        po_auto: "automatic doubles (at most)", po_warn: "Warn at", po_warn_errors: "every error", po_warn_blunders: "blunders only",
        po_hints: "Hints per match (empty: no limit)", po_from: "From a position (optional: Position ID, gnubg ID or XGID)",
        po_side: "You play", po_on_roll: "the side on roll", po_opponent: "the other side",
        po_free: "A game from a position is free: not archived or counted.", po_clock_line: "Clock: you {a} · pulvezar {b}",
        po_free_badge: "free game" },
  de: { po_clock: "Uhr", po_scope_match: "ein Budget für das Match", po_scope_game: "ein Budget je Spiel",
        po_auto: "automatische Verdopplungen (höchstens)", po_warn: "Warnen bei", po_warn_errors: "jedem Fehler", po_warn_blunders: "nur groben Fehlern",
        po_hints: "Tipps je Match (leer: unbegrenzt)", po_from: "Ab einer Stellung (optional: Positions-ID, gnubg-ID oder XGID)",
        po_side: "Du spielst", po_on_roll: "die Seite am Zug", po_opponent: "die andere Seite",
        po_free: "Ein Spiel ab einer Stellung ist frei: nicht archiviert, nicht gezählt.", po_clock_line: "Uhr: du {a} · pulvezar {b}",
        po_free_badge: "freies Spiel" },
  tr: { po_clock: "Saat", po_scope_match: "maç için tek süre", po_scope_game: "her oyun için süre",
        po_auto: "otomatik katlama (en çok)", po_warn: "Uyarı", po_warn_errors: "her hatada", po_warn_blunders: "yalnız büyük hatalarda",
        po_hints: "Maç başına ipucu (boş: sınırsız)", po_from: "Bir pozisyondan (isteğe bağlı: pozisyon kimliği, gnubg kimliği veya XGID)",
        po_side: "Oynadığın taraf", po_on_roll: "sırası gelen taraf", po_opponent: "diğer taraf",
        po_free: "Bir pozisyondan başlayan oyun serbesttir: arşivlenmez, sayılmaz.", po_clock_line: "Saat: sen {a} · pulvezar {b}",
        po_free_badge: "serbest oyun" },
});

/** The option rows of the start form and apply(body, {tavla, money}), which adds what they say to a new game's body. */
export function extraOptions() {
  const clock = h("input", { type: "checkbox", id: "pl-clock" });
  const scope = h("select", { id: "pl-clock-scope", "aria-label": t("po_clock") },
    h("option", { value: "match" }, t("po_scope_match")), h("option", { value: "game" }, t("po_scope_game")));
  const auto = h("input", { type: "number", id: "pl-auto-doubles", min: 0, max: 8, value: 0, class: "num-input" });
  const warn = h("select", { id: "pl-warn-at", "aria-label": t("po_warn") },
    h("option", { value: "0.02" }, t("po_warn_errors")), h("option", { value: "0.08" }, t("po_warn_blunders")));
  const hints = h("input", { type: "number", id: "pl-hint-limit", min: 0, max: 99, class: "num-input", placeholder: "∞" });
  const from = h("input", { id: "pl-from", class: "id-input", autocomplete: "off", spellcheck: "false" });
  const side = h("select", { id: "pl-side", "aria-label": t("po_side") },
    h("option", { value: "on_roll" }, t("po_on_roll")), h("option", { value: "opponent" }, t("po_opponent")));
  const clockRow = h("div", { class: "row" }, h("label", {}, clock, " ", t("po_clock")), " ", scope);
  const autoLabel = h("label", {}, t("po_auto"), " ", auto);
  const trainerRow = h("div", { class: "row" }, h("label", {}, t("po_warn"), " ", warn), h("label", {}, t("po_hints"), " ", hints));
  const fromRow = h("div", { class: "row col" }, h("label", {}, t("po_from"), " ", from), h("label", {}, t("po_side"), " ", side),
    h("p", { class: "muted" }, t("po_free")));
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
    el.textContent = t("po_clock_line", { a: mmss(left[0]), b: mmss(left[1]) });
  };
  tick();
  const timer = c.running != null && game.status === "playing" ? setInterval(() => (el.isConnected ? tick() : clearInterval(timer)), 1000) : null;
  return { el, stop: () => timer && clearInterval(timer) };
}
