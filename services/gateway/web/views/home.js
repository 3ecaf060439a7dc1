// The player's home, the landing view (no ?view= and no ?position=): for the player of this browser a few
// tiles, each a number or two and a link into its view -- the player's running game (GET /v1/games?status=playing&player=),
// today's daily and its streak and the PR trend (GET /v1/players/{id}/statistics), the cards due
// (GET /v1/players/{id}/cards), the week's plan (GET /v1/players/{id}/plan). Without a player: a short
// welcome that asks who plays. Every tile loads on its own: one that fails says so, the others stay.
import { api } from "../api.js";
import { t } from "../i18n.js";
import { currentPlayer } from "../players.js";
import { rulesName } from "../names.js";
import { navigate } from "../shell.js";
import { fmtNum, h, problemText } from "../ui.js";

/** A link into a view that navigates without reloading (keyboard: a plain link, Enter follows it). */
function go(query, text, id) {
  const href = `/?${new URLSearchParams(query)}`;
  return h("a", { href, id, class: "home-link", onclick: (e) => { e.preventDefault(); navigate(query); } }, text);
}

function tile(id, title, icon) {
  const body = h("div", { class: "home-body" }, h("p", { class: "muted" }, t("app.loading")));
  const el = h("section", { class: "home-tile card", id, "aria-labelledby": `${id}-title` },
    h("h2", { id: `${id}-title` }, h("span", { class: "icon", "aria-hidden": "true" }, icon), " ", title), body);
  return { el, body };
}

/** Fill a tile from `load()` (its children); an error is the tile's own message. */
async function fill(box, load, signal) {
  try {
    const children = await load();
    if (!signal.aborted) box.body.replaceChildren(...children);
  } catch (e) {
    if (e.name !== "AbortError" && !signal.aborted)
      box.body.replaceChildren(h("p", { class: "error-message" }, problemText(e)));
  }
}

export async function mount(el, params) {
  const controller = new AbortController();
  const { signal } = controller;
  el.classList.add("home-view");
  const player = params.player || currentPlayer();
  if (!player) {
    const who = h("button", { type: "button", id: "home-who", class: "primary",
      onclick: () => document.getElementById("player-button")?.click() }, t("home.who"));
    el.append(h("h1", {}, t("home.welcome_title")), h("p", { id: "home-welcome", class: "lead" }, t("home.welcome")),
      h("p", { class: "buttons" }, who, go({ view: "play" }, t("home.play_now"), "home-play-now"),
        go({ view: "daily" }, t("home.daily_open"), "home-daily-open")));
    return () => controller.abort();
  }
  const base = `/v1/players/${encodeURIComponent(player)}`;
  const game = tile("home-game", t("home.game"), "▶");
  const daily = tile("home-daily", t("home.daily"), "★");
  const cards = tile("home-cards", t("home.cards"), "▤");
  const plan = tile("home-plan", t("home.plan"), "✓");
  const pr = tile("home-pr", t("home.pr"), "↘");
  el.append(h("h1", {}, t("home.title")), h("div", { class: "home-grid" }, [game, daily, cards, plan, pr].map((x) => x.el)));
  const stats = api(`${base}/statistics`, { signal });
  stats.catch(() => {}); // read by two tiles; each shows its own error
  fill(game, async () => {
    // this player's running game only: the key's games of other players in this browser are theirs
    const { games } = await api(`/v1/games?${new URLSearchParams({ status: "playing", limit: 1, player })}`, { signal });
    if (!games.length) return [h("p", { class: "muted" }, t("home.no_game")), go({ view: "play" }, t("home.new_game"), "home-new-game")];
    const g = games[0], score = g.score || [0, 0];
    return [h("p", {}, t("home.game_line", { rules: rulesName(g.rules), n: g.match_length ?? 0, a: score[0], b: score[1] })),
      go({ view: "play", game: g.id }, t("home.continue"), "home-continue")];
  }, signal);
  fill(daily, async () => {
    const by = (await stats).daily || {};
    const streak = Math.max(0, ...Object.values(by).map((d) => d.streak || 0));
    return [h("p", {}, t("home.streak"), " ", h("strong", { id: "home-streak" }, streak)),
      go({ view: "daily" }, t("home.daily_open"), "home-daily-link")];
  }, signal);
  fill(cards, async () => {
    const deck = await api(`${base}/cards`, { signal });
    return [h("p", {}, t("home.cards_due"), " ", h("strong", { id: "home-due" }, deck.due_today), h("span", { class: "muted" }, ` / ${deck.count}`)),
      go({ view: "cards" }, t("home.cards_open"), "home-cards-link")];
  }, signal);
  fill(plan, async () => {
    const p = await api(`${base}/plan`, { signal });
    const tasks = p.areas.flatMap((a) => a.tasks);
    const done = tasks.filter((x) => x.done != null && x.done >= x.target).length;
    const line = p.areas.length
      ? h("p", {}, p.areas.map((a) => a.name).join(", "), " · ", h("strong", { id: "home-plan-done" }, `${done} / ${tasks.length}`))
      : h("p", { class: "muted", id: "home-plan-empty" }, t("home.plan_empty"));
    return [line, go({ view: "statistics" }, t("home.plan_open"), "home-plan-link")];
  }, signal);
  fill(pr, async () => {
    const s = (await stats).pr;
    const line = s.points.length
      ? h("p", { id: "home-pr-line" }, t("home.pr_line", { last: fmtNum(s.last, 1), mean: fmtNum(s.mean_last5, 1), best: fmtNum(s.best, 1) }))
      : h("p", { class: "muted", id: "home-pr-none" }, t("home.pr_none"));
    return [line, go({ view: "statistics" }, t("home.pr_open"), "home-pr-link")];
  }, signal);
  return () => controller.abort();
}
