// Similar positions (POST /v1/positions/similar; the app manual's 5.7): the positions of your archive (analysed
// matches) and library most like a given one, at least 60 % alike, each with a small board, the similarity,
// its type, where it comes from and the play made then. Address: /?view=similar[&position=<ID>].
import { api } from "../api.js";
import { navigate, remember } from "../shell.js";
import { t } from "../i18n.js";
import { drawBoard, boardFromPosition } from "../board.js";
import { h, decodePositionId, problemText } from "../ui.js";


// The view's state: s = {controller, list, size}.
export async function mount(el, params) {
  const s = { controller: new AbortController() };
  el.classList.add("sm-view");
  const input = h("input", { id: "sm-position", class: "id-input", value: params.position || "4HPwATDgc/ABMA", "aria-label": t("similar.position") });
  const form = h("form", { class: "id-form" }, input, " ", h("button", { type: "submit", id: "sm-find", class: "primary" }, t("similar.find")));
  form.addEventListener("submit", (e) => { e.preventDefault(); find(s, input.value.trim()); });
  s.size = h("p", { class: "muted", id: "sm-size" });
  s.list = h("ul", { class: "lb-list", id: "sm-list", "aria-live": "polite" });
  el.append(h("h1", {}, t("similar.title")), form, s.size, s.list);
  if (params.position) find(s, params.position);
  return () => s.controller.abort();
}

async function find(s, position) {
  remember({ view: "similar", position });
  let r;
  try {
    r = await api("/v1/positions/similar", { method: "POST", body: { position }, signal: s.controller.signal });
  } catch (e) {
    if (e.name !== "AbortError") s.list.replaceChildren(h("li", { class: "error-message", role: "alert" }, problemText(e)));
    return;
  }
  s.size.textContent = t("similar.size", { n: r.archive_size });
  if (!r.hits.length) { s.list.replaceChildren(h("li", { class: "muted", id: "sm-none" }, t("similar.none"))); return; }
  s.list.replaceChildren(...r.hits.map((hit) => {
    const board = h("div", { class: "lb-board" });
    const arrays = decodePositionId(hit.position_id);
    const drawn = boardFromPosition(arrays.mine, arrays.theirs);
    drawn.dice = hit.dice || null;
    drawBoard(board, drawn, { small: true, label: hit.name || hit.position_id });
    const from = hit.source === "library" ? hit.name : [hit.date, t("similar.from_match", { g: hit.game, m: hit.move })].filter(Boolean).join(" · ");
    const open = h("button", { type: "button", class: "sm-open", onclick: () => navigate({ position: hit.position_id, dice: hit.dice ? `${hit.dice[0]}${hit.dice[1]}` : null }) }, t("similar.open"));
    return h("li", { class: "lb-entry sm-hit", dataset: { id: hit.id, source: hit.source } }, board,
      h("div", {}, h("strong", {}, t("similar.hit", { p: hit.percent, kind: hit.kind || "" })), h("p", { class: "muted" }, from || ""),
        hit.play ? h("p", {}, hit.play) : null, h("div", { class: "buttons" }, open)));
  }));
}
