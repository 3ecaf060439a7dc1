// The backgammon board in SVG, drawn in the browser. The bottom player moves from its 24-point towards its
// 1-point (home board bottom right); the top player's points are numbered from its own side (its 1-point is
// the bottom player's 24-point). Colours and fonts come from board.css (classes only: the page's CSP
// allows no inline styles). The settings (settings.js) mirror it (home board on the left), choose your
// checkers' colour and name a Tavla roll in Turkish.
import { t } from "./i18n.js";
import { rollName, settings } from "./settings.js";


const NS = "http://www.w3.org/2000/svg";
// geometry (viewBox units)
const B = 10; // frame
const PW = 40; // point width
const BAR = 40;
const TRAY = 56;
const S = 20; // strips above and below: point numbers, pip counts
const HIN = 400; // inner height
const PH = 165; // point height
const R = PW / 2 - 1; // checker radius
const Y0 = S + B; // inner top
const MID = Y0 + HIN / 2;
const XBAR = B + 6 * PW; // bar's left edge
const XR = XBAR + BAR; // right half's left edge
const XTRAY = XR + 6 * PW + B; // tray's left edge
const W = XTRAY + TRAY + B;
const H = Y0 + HIN + B + S;
let MIRROR = false; // the board being drawn is mirrored: every x (of a thing w wide) from the other side
const mx = (x, w = 0) => (MIRROR ? W - x - w : x);

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) if (v != null) e.setAttribute(k, String(v));
  if (parent) parent.append(e);
  return e;
}

function text(parent, x, y, content, cls, extra = {}) {
  const e = el("text", { x, y, class: cls, "text-anchor": "middle", "dominant-baseline": "central", ...extra }, parent);
  e.textContent = content;
  return e;
}

/** Left edge of point p (bottom's numbering 1..24) and whether it is on the bottom row. */
function pointX(p) {
  if (p <= 6) return [mx(XR + (6 - p) * PW, PW), true];
  if (p <= 12) return [mx(B + (12 - p) * PW, PW), true];
  if (p <= 18) return [mx(B + (p - 13) * PW, PW), false];
  return [mx(XR + (p - 19) * PW, PW), false];
}

/** Centre of checker slot k on point p (bottom numbering; 25 = bar: bottom's; -1 = top's bar). */
function slot(p, k) {
  if (p === 25) return [mx(XBAR + BAR / 2), MID + 22 + R + k * 2 * R];
  if (p === -1) return [mx(XBAR + BAR / 2), MID - 22 - R - k * 2 * R];
  const [x, bottom] = pointX(p);
  const cx = x + PW / 2;
  return bottom ? [cx, Y0 + HIN - R - k * 2 * R] : [cx, Y0 + R + k * 2 * R];
}

function pipCount(side) {
  let n = 0;
  for (let i = 0; i < 24; i++) n += (i + 1) * (side[i] || 0);
  return n + 25 * (side[24] || 0);
}

function sum(a) {
  return a.reduce((x, y) => x + y, 0);
}

/** A board from the API's two 25-int arrays (the player on roll's view: mine, theirs). */
export function boardFromPosition(mine, theirs, { onRollIsBottom = true } = {}) {
  const [bottom, top] = onRollIsBottom ? [mine, theirs] : [theirs, mine];
  return {
    bottom: [...bottom], top: [...top],
    offBottom: 15 - sum(bottom), offTop: 15 - sum(top),
    dice: null, cube: null,
    pips: [pipCount(bottom), pipCount(top)],
  };
}

/** The moves of a play's notation as [from, to] pairs: "8/5 6/5", "bar/22*", "6/off", "13/7(2)", "24/18/13". */
export function arrowsOfNotation(notation) {
  const out = [];
  if (!notation) return out;
  const num = (s) => {
    const v = s.replace(/\*/g, "").trim().toLowerCase();
    if (v === "bar") return 25;
    if (v === "off") return 0;
    const n = parseInt(v, 10);
    return Number.isFinite(n) ? n : null;
  };
  for (const token of notation.trim().split(/\s+/)) {
    const m = token.match(/^(.*?)(?:\((\d+)\))?$/);
    const times = m[2] ? parseInt(m[2], 10) : 1;
    const points = m[1].split("/").map(num);
    if (points.length < 2 || points.some((p) => p == null)) continue;
    for (let r = 0; r < times; r++)
      for (let i = 0; i + 1 < points.length; i++) out.push([points[i], points[i + 1]]);
  }
  return out;
}

function drawChecker(g, cx, cy, side, label) {
  el("circle", { cx, cy, r: R - 0.5, class: `ck ${side}` }, g);
  el("circle", { cx, cy, r: R - 6, class: `ck-ring ${side}` }, g);
  if (label) text(g, cx, cy, label, `ck-count ${side}`);
}

function drawStack(g, p, n, side, maxShown = 5) {
  const shown = Math.min(n, maxShown);
  for (let k = 0; k < shown; k++) {
    const [cx, cy] = slot(p, k);
    drawChecker(g, cx, cy, side, k === shown - 1 && n > maxShown ? String(n) : null);
  }
}

function drawDie(g, x, y, value, size = 30) {
  el("rect", { x, y, width: size, height: size, rx: 5, class: "die" }, g);
  const c = size / 2, o = size / 4;
  const pips = {
    1: [[c, c]], 2: [[o, o], [size - o, size - o]], 3: [[o, o], [c, c], [size - o, size - o]],
    4: [[o, o], [size - o, o], [o, size - o], [size - o, size - o]],
    5: [[o, o], [size - o, o], [c, c], [o, size - o], [size - o, size - o]],
    6: [[o, o], [size - o, o], [o, c], [size - o, c], [o, size - o], [size - o, size - o]],
  }[value] || [];
  for (const [px, py] of pips) el("circle", { cx: x + px, cy: y + py, r: size / 12, class: "die-pip" }, g);
}

/** Where an arrow starts or ends: point p's checker slot (bar 25, off 0 = the tray). */
function anchor(board, p, isSource, offsetIndex) {
  if (p === 0) return [mx(XTRAY + TRAY / 2), Y0 + HIN - 60];
  if (p === 25) return slot(25, Math.max(0, Math.min((board.bottom[24] || 0) - (isSource ? 1 : 0), 3)));
  const own = board.bottom[p - 1] || 0;
  const theirs = board.top[24 - p] || 0;
  const count = own + theirs;
  const k = isSource ? Math.max(0, own - 1 - offsetIndex) : Math.min(count, 4);
  return slot(p, Math.min(k, 4));
}

function drawArrow(g, [x1, y1], [x2, y2], index) {
  const dx = x2 - x1, dy = y2 - y1;
  const len = Math.hypot(dx, dy);
  if (len < 1) return;
  const ux = dx / len, uy = dy / len;
  // shorten so the head ends at the checker's edge
  const ex = x2 - ux * 6, ey = y2 - uy * 6;
  const head = 14, wide = 8;
  const bx = ex - ux * head, by = ey - uy * head;
  const a = el("g", { class: `arrow arrow-${index}` }, g);
  el("line", { x1, y1, x2: bx, y2: by, class: "arrow-line" }, a);
  el("polygon", {
    points: `${ex},${ey} ${bx - uy * wide},${by + ux * wide} ${bx + uy * wide},${by - ux * wide}`,
    class: "arrow-head",
  }, a);
}

function interactive(node, label, fn) {
  node.setAttribute("tabindex", "0");
  node.setAttribute("role", "button");
  node.setAttribute("aria-label", label);
  node.classList.add("clickable");
  node.addEventListener("click", (e) => fn(e));
  node.addEventListener("contextmenu", (e) => {
    e.preventDefault();
    fn(e);
  });
  node.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      fn(e);
    }
  });
}

/** Drag and drop between the click targets: onDrag(from, to, event) when a press on one ends on another
 * (a press and release on the same target stays a click).  The release is heard on the document, so a
 * board redrawn while the button is down (an answer that arrived meanwhile) does not lose the drag. */
let drag = null; // {from, onDrag} while a press that began on a board's target lasts
const pointAt = (e) => {
  const hit = document.elementFromPoint(e.clientX, e.clientY)?.closest?.(".hit");
  return hit ? Number(hit.dataset.point) : null;
};
document.addEventListener("pointerup", (e) => {
  const d = drag;
  drag = null;
  for (const b of document.querySelectorAll("svg.board.dragging")) b.classList.remove("dragging");
  if (!d) return;
  const to = pointAt(e);
  if (to != null && to !== d.from) d.onDrag(d.from, to, e);
});
document.addEventListener("pointercancel", () => { drag = null; });

function draggable(svg, onDrag) {
  svg.addEventListener("pointerdown", (e) => {
    if (e.button !== 0) return;
    const from = pointAt(e);
    if (from == null) return;
    drag = { from, onDrag };
    svg.classList.add("dragging");
  });
}

/**
 * Draw `board` into `container` (its children are replaced); returns the svg.
 * options: arrows [[from, to]] (bottom's numbering, 25 = bar, 0 = off), highlight [points], selected point,
 * onPoint(point, event) (bottom's numbering; 25 = bar, 0 = off tray; highlight and selected take 25 and 0 too),
 * onDrag(from, to, event) (a checker dragged from one point, the bar or the tray to another; with onPoint),
 * small (a thumbnail), label (aria-label),
 * diceOn "bottom" | "top" (which half shows the dice; default bottom = the right half),
 * tavla (the dice's Turkish roll name under them, where the settings want it),
 * mirror (default: the settings'; true draws the home board on the left).
 */
export function drawBoard(container, board, options = {}) {
  const { arrows = [], highlight = [], selected = null, onPoint = null, onDrag = null, small = false, label = null } = options;
  const bottom = board.bottom || new Array(25).fill(0);
  const top = board.top || new Array(25).fill(0);
  const prefs = settings();
  MIRROR = options.mirror ?? prefs.mirror;
  const classes = ["board", small && "small", MIRROR && "mirrored", prefs.checkers === "dark" && "mine-dark"];
  const svg = el("svg", {
    viewBox: `0 0 ${W} ${H}`, class: classes.filter(Boolean).join(" "), role: onPoint ? null : "img", // an image holds no buttons
    "aria-label": label || t("board.label"),
  });
  el("rect", { x: 0, y: S, width: W, height: HIN + 2 * B, rx: 6, class: "frame" }, svg);
  el("rect", { x: mx(B, 12 * PW + BAR), y: Y0, width: 12 * PW + BAR, height: HIN, class: "felt" }, svg);
  const hl = new Set(highlight);
  el("rect", { x: mx(XBAR, BAR), y: Y0, width: BAR, height: HIN, class: `bar${hl.has(25) ? " highlight" : ""}${selected === 25 ? " selected" : ""}` }, svg);
  el("rect", { x: mx(XTRAY, TRAY), y: Y0, width: TRAY, height: HIN, class: `tray${hl.has(0) ? " highlight" : ""}` }, svg);

  const points = el("g", { class: "points" }, svg);
  for (let p = 1; p <= 24; p++) {
    const [x, isBottom] = pointX(p);
    const base = isBottom ? Y0 + HIN : Y0;
    const tip = isBottom ? base - PH : base + PH;
    const g = el("g", { class: "point", "data-point": p }, points);
    el("polygon", {
      points: `${x},${base} ${x + PW},${base} ${x + PW / 2},${tip}`,
      class: `tri ${p % 2 ? "odd" : "even"}${hl.has(p) ? " highlight" : ""}${selected === p ? " selected" : ""}`,
    }, g);
    if (hl.has(p) || selected === p) // a mark on the frame too: a full stack hides its triangle
      el("rect", { x: x + 3, y: isBottom ? Y0 + HIN + 2 : Y0 - 8, width: PW - 6, height: 6, rx: 2, class: `mark${selected === p ? " selected" : ""}` }, g);
    if (!small) {
      const ny = isBottom ? Y0 + HIN + B + S / 2 : S / 2;
      text(svg, x + PW / 2, ny, String(p), "num");
    }
  }

  // checkers
  const checkers = el("g", { class: "checkers" }, svg);
  for (let p = 1; p <= 24; p++) {
    if (bottom[p - 1]) drawStack(checkers, p, bottom[p - 1], "bottom");
    if (top[24 - p]) drawStack(checkers, p, top[24 - p], "top");
  }
  if (bottom[24]) drawStack(checkers, 25, bottom[24], "bottom", 3);
  if (top[24]) drawStack(checkers, -1, top[24], "top", 3);

  // borne off: slabs in the tray (bottom's from the bottom up, top's from the top down)
  const offB = board.offBottom ?? 15 - sum(bottom);
  const offT = board.offTop ?? 15 - sum(top);
  const tray = el("g", { class: "off" }, svg);
  for (let k = 0; k < offB; k++)
    el("rect", { x: mx(XTRAY + 6, TRAY - 12), y: Y0 + HIN - 4 - (k + 1) * 11, width: TRAY - 12, height: 10, rx: 2, class: "slab bottom" }, tray);
  for (let k = 0; k < offT; k++)
    el("rect", { x: mx(XTRAY + 6, TRAY - 12), y: Y0 + 4 + k * 11, width: TRAY - 12, height: 10, rx: 2, class: "slab top" }, tray);

  // cube: centred on the bar, owned in the tray's middle on its owner's side
  if (board.cube) {
    const size = 32;
    const v = board.cube.value || 1;
    let x = mx(XBAR + (BAR - size) / 2, size), y = MID - size / 2;
    if (board.cube.owner === "bottom") [x, y] = [mx(XTRAY + (TRAY - size) / 2, size), MID + 4];
    else if (board.cube.owner === "top") [x, y] = [mx(XTRAY + (TRAY - size) / 2, size), MID - 4 - size];
    const g = el("g", { class: "cube" }, svg);
    el("rect", { x, y, width: size, height: size, rx: 4, class: "cube-face" }, g);
    text(g, x + size / 2, y + size / 2, String(board.cube.owner ? v : v === 1 ? 64 : v), "cube-value");
    el("title", {}, g).textContent = t("board.cube", { v });
  }

  // dice: in the right half (bottom's roll) or the left half (diceOn: "top")
  if (board.dice && board.dice[0]) {
    const g = el("g", { class: "dice" }, svg);
    const cx = mx(options.diceOn === "top" ? B + 3 * PW : XR + 3 * PW);
    drawDie(g, cx - 36, MID - 15, board.dice[0]);
    drawDie(g, cx + 6, MID - 15, board.dice[1]);
    const name = options.tavla && prefs.rollNames && !small ? rollName(board.dice) : null;
    if (name) text(g, cx, MID + 30, name, "roll-name", { lang: "tr" });
  }

  // pip counts above and below the tray
  const pips = board.pips || [pipCount(bottom), pipCount(top)];
  if (!small && pips) {
    const tb = text(svg, mx(XTRAY + TRAY / 2), Y0 + HIN + B + S / 2, String(pips[0]), "pips bottom");
    el("title", {}, tb).textContent = `${t("board.pips")}: ${pips[0]}`;
    const tt = text(svg, mx(XTRAY + TRAY / 2), S / 2, String(pips[1]), "pips top");
    el("title", {}, tt).textContent = `${t("board.pips")}: ${pips[1]}`;
  }

  // arrows
  if (arrows.length) {
    const g = el("g", { class: "arrows" }, svg);
    const used = new Map();
    arrows.forEach(([from, to], i) => {
      const n = used.get(from) || 0;
      used.set(from, n + 1);
      drawArrow(g, anchor(board, from, true, n), anchor(board, to, false, 0), i);
    });
  }

  // click targets on top of everything: points, bar, tray
  if (onPoint && !small) {
    const hits = el("g", { class: "hits" }, svg);
    for (let p = 1; p <= 24; p++) {
      const [x, isBottom] = pointX(p);
      const r = el("rect", {
        x, y: isBottom ? MID : Y0, width: PW, height: HIN / 2, class: "hit", "data-point": p,
      }, hits);
      const n = bottom[p - 1] || top[24 - p] || 0;
      interactive(r, `${t("board.point", { n: p })}${n ? ", " + t("board.checkers", { n }) : ""}`, (e) => onPoint(p, e));
    }
    const bar = el("rect", { x: mx(XBAR, BAR), y: Y0, width: BAR, height: HIN, class: "hit", "data-point": 25 }, hits);
    interactive(bar, t("board.bar"), (e) => onPoint(25, e));
    const off = el("rect", { x: mx(XTRAY, TRAY), y: Y0, width: TRAY, height: HIN, class: "hit", "data-point": 0 }, hits);
    interactive(off, t("board.off"), (e) => onPoint(0, e));
  }
  if (onPoint && onDrag && !small) draggable(svg, onDrag);

  container.replaceChildren(svg);
  return svg;
}
