// The end of a game and of a match (issue 44, the seed's 5.7): the summary card of the last ended game
// (duration, points and how, each side's average roll, luck and quick 0-ply PR, hints, warnings; the match's
// result once it is over), sharing the result card and the board as pictures (the Web Share API where the browser has it,
// else a download), and, while a match runs, resigning it whole (a loss) or deleting it. The play view calls
// gameEnd(game, {changed, gone}) for its side panels.
import { api, apiBlob } from "./api.js";
import { t, formatNumber } from "./i18n.js";
import { h, fmtNum, problemText, saveBlob } from "./ui.js";
import { toast } from "./shell.js";

/** The panels of the end of a game for the play view's side: the summary when a game just ended or the match
 * is over; the match's menu while it runs. `changed(state)`: the match's new state; `gone()`: it was deleted. */
export function gameEnd(game, { changed, gone }) {
  const ended = game.status === "finished" || (game.events || []).some((e) => e.type === "game_end");
  const out = [];
  if (ended) out.push(endCard(game));
  if (game.status !== "finished") out.push(matchMenu(game, { changed, gone }));
  return out;
}

/** The summary card of the last ended game (filled when /end answers), with its share buttons. */
function endCard(game) {
  const body = h("div", { class: "ge-body", "aria-live": "polite" }, h("p", { class: "muted" }, t("app.loading")));
  const card = h("section", { class: "panel ge-end", id: "ge-end", "aria-labelledby": "ge-end-title" },
    h("h3", { id: "ge-end-title" }, t(game.status === "finished" ? "gameend.match_title" : "gameend.game_title")), body,
    shareButtons(game));
  api(`/v1/games/${game.id}/end`)
    .then((s) => body.replaceChildren(...summaryList(s)))
    .catch((e) => body.replaceChildren(h("p", { class: "error-message", role: "alert" }, problemText(e))));
  return card;
}

function duration(seconds) {
  if (seconds == null) return "–";
  const m = Math.floor(seconds / 60);
  return t("gameend.minutes_seconds", { m: formatNumber(m), s: formatNumber(Math.round(seconds % 60)) });
}

/** The summary's rows: what the seed's end-of-game card lists. */
function summaryList(s) {
  const winner = s.winner === 0 ? t("gameend.you") : t("gameend.bot");
  const how = t(`gameend.how_${s.how}`) + (s.outcome && s.outcome !== "single" ? ` (${t(`gameend.outcome_${s.outcome}`)})` : "");
  const rows = [
    ["result", t("gameend.won_points", { who: winner, n: s.points })],
    ["how", how],
    ["score", `${s.score[0]} – ${s.score[1]}`],
    ["duration", duration(s.duration_s)],
    ["average_roll", `${fmtNum(s.you.average_roll, 1)} / ${fmtNum(s.bot.average_roll, 1)}`],
    ["luck", `${fmtNum(s.you.luck, 2)} / ${fmtNum(s.bot.luck, 2)}`],
    ["pr", `${fmtNum(s.you.pr, 1)} / ${fmtNum(s.bot.pr, 1)}`], // a quick 0-ply PR; the analysis gives the full one
    ["hints", formatNumber(s.hints_used)],
    ["warnings", formatNumber(s.warnings)],
  ];
  if (s.match_over) rows.push(["match_duration", duration(s.match_duration_s)]);
  const list = h("dl", { class: "ge-summary", id: "ge-summary" },
    rows.map(([k, v]) => [h("dt", {}, t(`gameend.${k}`)), h("dd", { id: `ge-${k}` }, v)]));
  const notes = ["gameend.sides_note", "gameend.pr_quick_note"].map((k) => h("p", { class: "muted" }, t(k)));
  return [list, ...notes];
}

/** Share the result card and the board: files through the Web Share API, else downloads. */
function shareButtons(game) {
  const pos = game.board?.xgid || game.board?.position_id;
  const rules = game.settings?.rules?.variant === "tavla" ? "?rules=tavla" : "";
  const card = { path: `/v1/games/${game.id}/card.png`, file: `${game.id}-result.png` };
  const board = { path: `/v1/positions/${encodeURIComponent(pos).replaceAll("%2F", "/")}/board.png${rules}`, file: `${game.id}-board.png` };
  return h("div", { class: "buttons", id: "ge-share" },
    h("button", { type: "button", id: "ge-share-card", onclick: () => share(card) }, t("gameend.share_card")),
    pos ? h("button", { type: "button", id: "ge-share-board", onclick: () => share(board) }, t("gameend.share_board")) : null);
}

async function share({ path, file }) {
  try {
    const blob = await apiBlob(path);
    const files = [new File([blob], file, { type: blob.type || "image/png" })];
    if (navigator.canShare?.({ files })) {
      try {
        await navigator.share({ files, title: t("gameend.share_title") });
        return;
      } catch (e) {
        if (e.name === "AbortError") return; // the person closed the share sheet
      }
    }
    saveBlob(blob, file);
    toast(t("gameend.saved", { file }));
  } catch (e) {
    toast(problemText(e), "error");
  }
}

/** Resign the whole match (a loss) or delete it, each after a second click that confirms it. */
function matchMenu(game, { changed, gone }) {
  const ask = h("div", { class: "ge-confirm", id: "ge-confirm", "aria-live": "polite" });
  const confirm = (question, label, run) => {
    const yes = h("button", { type: "button", class: "danger", id: "ge-confirm-yes", onclick: run }, label);
    ask.replaceChildren(h("p", {}, question),
      h("div", { class: "buttons" }, yes, h("button", { type: "button", id: "ge-confirm-no", onclick: () => ask.replaceChildren() }, t("app.cancel"))));
    yes.focus();
  };
  const forfeit = () => confirm(t("gameend.forfeit_question"), t("gameend.forfeit"), async () => {
    try { changed(await api(`/v1/games/${game.id}/forfeit`, { method: "POST" })); } catch (e) { toast(problemText(e), "error"); }
  });
  const remove = () => confirm(t("gameend.delete_question"), t("gameend.delete"), async () => {
    try { await api(`/v1/games/${game.id}`, { method: "DELETE" }); toast(t("gameend.deleted")); gone(); } catch (e) { toast(problemText(e), "error"); }
  });
  return h("section", { class: "panel ge-match", id: "ge-match" }, h("h3", {}, t("gameend.match_menu")),
    h("div", { class: "buttons" },
      h("button", { type: "button", id: "ge-forfeit", onclick: forfeit }, t("gameend.forfeit")),
      h("button", { type: "button", id: "ge-delete", onclick: remove }, t("gameend.delete"))), ask);
}
