// The entry: wires the routes to the views, and the header (navigation, who plays, language, API key); one view
// at a time.
// The address carries the state: / (the player's home), /?position=<ID>&dice=31 (position view), /?view=play[&game=<id>],
// /?view=analysis[&job=<id>], /?view=book, /?view=daily, /?view=statistics|cards[&player=<id>],
// /?view=library[&q=][&rules=], /?view=training[&player=<id>][&lesson=<id>], /?view=met[&length=][&table=],
// /?view=deep[&position=][&dice=][&job=], /?view=similar[&position=], /?view=replay[&game=][&step=]. The services views use are in shell.js; nothing
// imports this module. The header's "open" box (links.js) takes a pasted link or ID (docs/web.md "Links").
import { apiKey, setApiKey, whenUnauthorized } from "./api.js";
import { LANGUAGES, initialLang, lang, setLang, t } from "./i18n.js";
import { navigate, queryOf, toast, whenNavigated } from "./shell.js";
import { applySettings, settingsButton } from "./settings.js";
import { openBox } from "./links.js";
import { whoPlays } from "./whoplays.js";

const VIEWS = {
  home: () => import("./views/home.js"),
  position: () => import("./views/position.js"),
  play: () => import("./views/play.js"),
  analysis: () => import("./views/analysis.js"),
  book: () => import("./views/book.js"),
  daily: () => import("./views/daily.js"),
  quiz: () => import("./views/quiz.js"),
  statistics: () => import("./views/statistics.js"),
  cards: () => import("./views/cards.js"),
  library: () => import("./views/library.js"),
  training: () => import("./views/training.js"),
  met: () => import("./views/met.js"),
  deep: () => import("./views/deep.js"),
  similar: () => import("./views/similar.js"),
  replay: () => import("./views/replay.js"),
};
let cleanup = null;
let renders = 0;
let who = null; // the header's player (whoplays.js)

function params() {
  return queryOf(location.search);
}

async function render() {
  const p = params();
  const name = VIEWS[p.view] ? p.view : p.position ? "position" : "home";
  for (const a of document.querySelectorAll("#nav a")) a.setAttribute("aria-current", a.dataset.nav === name ? "page" : "false");
  if (cleanup) cleanup();
  cleanup = null;
  const el = document.getElementById("view");
  el.dataset.view = name;
  // each mount gets a fresh host: a view's late async work (a fetch that answers after the user switched the
  // language or the view) lands in its own detached host, never beside the next view's elements
  const host = document.createElement("div");
  host.className = "view-host";
  el.replaceChildren(host);
  const seq = ++renders;
  try {
    const mod = await VIEWS[name]();
    if (seq !== renders) return; // a newer render started while this module loaded
    const done = (await mod.mount(host, p)) || null;
    if (seq !== renders) {
      if (done) done(); // superseded while it mounted: it stops now
      return;
    }
    cleanup = done;
  } catch (e) {
    host.textContent = `${t("app.error")}: ${e.message}`;
    console.warn(e);
  }
}

function nav() {
  const navEl = document.getElementById("nav");
  navEl.replaceChildren();
  for (const name of Object.keys(VIEWS)) {
    const a = document.createElement("a");
    a.href = name === "home" ? "/" : `/?view=${name}`;
    a.dataset.nav = name;
    a.dataset.i18n = `app.nav_${name}`;
    a.textContent = t(`app.nav_${name}`);
    a.addEventListener("click", (e) => {
      e.preventDefault();
      navigate(name === "home" ? {} : { view: name });
    });
    navEl.append(a);
  }
}

function askKey() {
  const dialog = document.getElementById("key-dialog");
  const input = document.getElementById("key-input");
  input.value = apiKey();
  dialog.returnValue = "";
  dialog.showModal();
  dialog.addEventListener("close", () => {
    if (dialog.returnValue === "ok") {
      setApiKey(input.value.trim());
      who?.relabel(); // another key: its own players
      render();
    }
  }, { once: true });
}

async function start() {
  applySettings(); // the text size (settings.js)
  whenNavigated(render);
  const select = document.getElementById("lang");
  select.replaceChildren(...Object.entries(LANGUAGES).map(([code, name]) => new Option(name, code)));
  select.value = initialLang();
  await setLang(select.value);
  select.value = lang();
  nav();
  const relabelBox = openBox();
  // another player: the view again, for the new player (a ?player= of the address would name the old one)
  who = whoPlays(() => navigate({ ...params(), player: null }, { replace: true }));
  select.addEventListener("change", async () => {
    await setLang(select.value);
    who.relabel();
    relabelBox();
    render();
  });
  document.getElementById("key-button").addEventListener("click", askKey);
  document.getElementById("key-button").before(settingsButton(render)); // settings.js: a change shows the view again
  whenUnauthorized(() => {
    toast(t("app.key_needed"), "error");
    askKey();
  });
  window.addEventListener("popstate", render);
  render();
}

start();
