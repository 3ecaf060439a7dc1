// Match analysis: upload a .mat/.sgf/.xg file (POST /v1/analyses), watch the job (server-sent events), then the
// players' PR, error rate, grade and luck, the errors with small boards, the equity and luck graph and the
// annotated SGF. "Your jobs" (GET /v1/analyses) can be reopened or cancelled. The address carries the job:
// /?view=analysis&job=<id>.
import { api, streamEvents, ApiError } from "../api.js";
import { remember, toast } from "../shell.js";
import { t, addMessages, lang } from "../i18n.js";
import { drawBoard, boardFromPosition, arrowsOfNotation } from "../board.js";
import { h, decodePositionId, decodeMatchCube, fmtEq, fmtNum, problemText } from "../ui.js";

addMessages({
  en: {
    an_title: "Match analysis", an_upload: "Analyse a match", an_file: "Match file (.mat, .sgf, .xg)",
    an_level: "Level", an_submit: "Analyse", an_no_file: "Choose a match file first.",
    an_progress: "{done} of {total} games analysed", an_eta: "about {s} s left", an_state: "State: {state}",
    an_state_queued: "queued", an_state_running: "running", an_state_done: "done", an_state_failed: "failed",
    an_state_cancelled: "cancelled", an_cancel: "Cancel", an_cancelled: "The job was cancelled.",
    an_delete: "Delete", an_deleted: "The job was deleted.", an_open: "Open", an_more: "More jobs",
    an_jobs: "Your jobs", an_no_jobs: "No analysis jobs yet.", an_refresh: "Refresh",
    an_players: "Players", an_pr: "PR", an_error_rate: "Error rate (mEMG)", an_grade: "Grade",
    an_errors_n: "Errors", an_blunders_n: "Blunders", an_luck: "Luck (points)", an_luck_adj: "Luck-adjusted result",
    an_result: "Result (points)", an_decisions: "Decisions",
    an_download: "Download the annotated SGF", an_graph: "Equity and luck across the match",
    an_graph_desc: "Top: the equity of {p} after each checker play. Bottom: {p}'s luck so far. Dots: errors (orange) and blunders (red).",
    an_equity: "Equity", an_luck_sum: "Luck", an_game: "Game {n}",
    an_errors: "Errors and blunders", an_filter: "Show", an_filter_all: "all errors and blunders",
    an_filter_blunders: "blunders only", an_filter_player: "{p} only", an_none: "No errors: well played!",
    an_item: "Game {g}, move {m}: {p}", an_to_play: "{p} to play {d}", an_cube_action: "{p}: cube action",
    an_played: "Played", an_better: "Better", an_loss: "loss {x}", an_show_played: "Show played",
    an_candidates: "Candidates ({n})", an_show_better: "Show better", an_mark_error: "error", an_mark_blunder: "blunder",
    an_cube_eq: "No double {nd}, double/take {dt}, double/pass {dp}", an_match: "Match",
    an_match_of: "{players}, {n}-point match, level {level}", an_money: "{players}, money game(s), level {level}",
    an_failed: "The analysis failed: {e}", an_failed_games: "{n} game(s) could not be analysed.",
    an_not_found: "This analysis job does not exist (any more), or it belongs to another key.",
    an_uploading: "Uploading…", an_waiting: "Waiting for the results…", an_category: "{c}",
  },
  de: {
    an_title: "Match-Analyse", an_upload: "Ein Match analysieren", an_file: "Match-Datei (.mat, .sgf, .xg)",
    an_level: "Stufe", an_submit: "Analysieren", an_no_file: "Bitte zuerst eine Match-Datei wählen.",
    an_progress: "{done} von {total} Spielen analysiert", an_eta: "noch etwa {s} s", an_state: "Status: {state}",
    an_state_queued: "wartet", an_state_running: "läuft", an_state_done: "fertig", an_state_failed: "fehlgeschlagen",
    an_state_cancelled: "abgebrochen", an_cancel: "Abbrechen", an_cancelled: "Der Auftrag wurde abgebrochen.",
    an_delete: "Löschen", an_deleted: "Der Auftrag wurde gelöscht.", an_open: "Öffnen", an_more: "Weitere Aufträge",
    an_jobs: "Ihre Aufträge", an_no_jobs: "Noch keine Analyse-Aufträge.", an_refresh: "Aktualisieren",
    an_players: "Spieler", an_pr: "PR", an_error_rate: "Fehlerrate (mEMG)", an_grade: "Einstufung",
    an_errors_n: "Fehler", an_blunders_n: "Patzer", an_luck: "Glück (Punkte)", an_luck_adj: "Glücksbereinigtes Ergebnis",
    an_result: "Ergebnis (Punkte)", an_decisions: "Entscheidungen",
    an_download: "Kommentierte SGF herunterladen", an_graph: "Equity und Glück im Verlauf des Matches",
    an_graph_desc: "Oben: die Equity von {p} nach jedem Zug. Unten: das bisherige Glück von {p}. Punkte: Fehler (orange) und Patzer (rot).",
    an_equity: "Equity", an_luck_sum: "Glück", an_game: "Spiel {n}",
    an_errors: "Fehler und Patzer", an_filter: "Zeigen", an_filter_all: "alle Fehler und Patzer",
    an_filter_blunders: "nur Patzer", an_filter_player: "nur {p}", an_none: "Keine Fehler: gut gespielt!",
    an_item: "Spiel {g}, Zug {m}: {p}", an_to_play: "{p} zieht {d}", an_cube_action: "{p}: Dopplerentscheidung",
    an_played: "Gespielt", an_better: "Besser", an_loss: "Verlust {x}", an_show_played: "Gespielten zeigen",
    an_candidates: "Kandidaten ({n})", an_show_better: "Besseren zeigen", an_mark_error: "Fehler", an_mark_blunder: "Patzer",
    an_cube_eq: "Nicht doppeln {nd}, doppeln/annehmen {dt}, doppeln/ablehnen {dp}", an_match: "Match",
    an_match_of: "{players}, Match auf {n} Punkte, Stufe {level}", an_money: "{players}, Geldspiel, Stufe {level}",
    an_failed: "Die Analyse ist fehlgeschlagen: {e}", an_failed_games: "{n} Spiel(e) konnten nicht analysiert werden.",
    an_not_found: "Diesen Analyse-Auftrag gibt es nicht (mehr), oder er gehört zu einem anderen Schlüssel.",
    an_uploading: "Wird hochgeladen…", an_waiting: "Warte auf die Ergebnisse…", an_category: "{c}",
  },
  tr: {
    an_title: "Maç analizi", an_upload: "Bir maçı analiz et", an_file: "Maç dosyası (.mat, .sgf, .xg)",
    an_level: "Seviye", an_submit: "Analiz et", an_no_file: "Önce bir maç dosyası seçin.",
    an_progress: "{total} oyundan {done} tanesi analiz edildi", an_eta: "yaklaşık {s} sn kaldı", an_state: "Durum: {state}",
    an_state_queued: "sırada", an_state_running: "çalışıyor", an_state_done: "bitti", an_state_failed: "başarısız",
    an_state_cancelled: "iptal edildi", an_cancel: "İptal et", an_cancelled: "İş iptal edildi.",
    an_delete: "Sil", an_deleted: "İş silindi.", an_open: "Aç", an_more: "Daha fazla iş",
    an_jobs: "İşleriniz", an_no_jobs: "Henüz analiz işi yok.", an_refresh: "Yenile",
    an_players: "Oyuncular", an_pr: "PR", an_error_rate: "Hata oranı (mEMG)", an_grade: "Derece",
    an_errors_n: "Hatalar", an_blunders_n: "Büyük hatalar", an_luck: "Şans (puan)", an_luck_adj: "Şanstan arındırılmış sonuç",
    an_result: "Sonuç (puan)", an_decisions: "Kararlar",
    an_download: "Yorumlu SGF dosyasını indir", an_graph: "Maç boyunca equity ve şans",
    an_graph_desc: "Üstte: her hamleden sonra {p} için equity. Altta: {p} oyuncusunun o ana kadarki şansı. Noktalar: hatalar (turuncu) ve büyük hatalar (kırmızı).",
    an_equity: "Equity", an_luck_sum: "Şans", an_game: "Oyun {n}",
    an_errors: "Hatalar ve büyük hatalar", an_filter: "Göster", an_filter_all: "tüm hatalar",
    an_filter_blunders: "yalnızca büyük hatalar", an_filter_player: "yalnızca {p}", an_none: "Hata yok: iyi oynandı!",
    an_item: "Oyun {g}, hamle {m}: {p}", an_to_play: "{p} oynuyor: {d}", an_cube_action: "{p}: küp kararı",
    an_played: "Oynanan", an_better: "Daha iyi", an_loss: "kayıp {x}", an_show_played: "Oynananı göster",
    an_candidates: "Adaylar ({n})", an_show_better: "Daha iyisini göster", an_mark_error: "hata", an_mark_blunder: "büyük hata",
    an_cube_eq: "Katlamamak {nd}, katla/kabul {dt}, katla/pas {dp}", an_match: "Maç",
    an_match_of: "{players}, {n} sayılık maç, seviye {level}", an_money: "{players}, para oyunu, seviye {level}",
    an_failed: "Analiz başarısız oldu: {e}", an_failed_games: "{n} oyun analiz edilemedi.",
    an_not_found: "Bu analiz işi yok (artık), ya da başka bir anahtara ait.",
    an_uploading: "Yükleniyor…", an_waiting: "Sonuçlar bekleniyor…", an_category: "{c}",
  },
});

// ---- the explanation in the UI's language, from the analysis' structured reasons ------------------------
const TR_WORD = { 0: "sıfır", 1: "bir", 2: "iki", 3: "üç", 4: "dört", 5: "beş", 6: "altı", 7: "yedi", 8: "sekiz",
  9: "dokuz", 10: "on", 20: "yirmi", 30: "otuz", 40: "kırk", 50: "elli", 60: "altmış", 70: "yetmiş", 80: "seksen",
  90: "doksan", 100: "yüz" };

function trSuffix(n, kase) {
  n = Math.abs(n);
  const word = n === 0 ? "sıfır" : n % 10 ? TR_WORD[n % 10] : n % 100 ? TR_WORD[n % 100] : "yüz";
  const vowel = [...word].reverse().find((c) => "aıoueiöü".includes(c));
  const a = "aıou".includes(vowel) ? "a" : "e";
  const last = word[word.length - 1];
  if (kase === "dat") return `${n}'${"aıoueiöü".includes(last) ? "y" : ""}${a}`;
  return `${n}'${"fstkçşhp".includes(last) ? "t" : "d"}${a}n`;
}

const n0 = (x) => Math.round(x);
const pc = (x) => Math.round(100 * x);
const PHRASES = {
  en: {
    sentence: "{better} is better than {other}: it {reasons}.", conj: " and ",
    none: "{better} is better than {other}, but no single feature of the board stands out; the difference lies in the overall evaluation.",
    hits: (r) => r.other === 0 ? (r.better === 1 ? "hits a blot" : `hits ${n0(r.better)} blots`) : `hits ${n0(r.better)} blots instead of ${n0(r.other)}`,
    fewer_shots: (r) => `leaves ${r.better === 0 ? "no shots" : r.better === 1 ? "1 shot" : `${n0(r.better)} shots`} instead of ${n0(r.other)} (out of 36)`,
    makes_point: (r) => `makes the ${r.point}-point`,
    makes_anchor: (r) => `makes an anchor on the ${r.point}-point`,
    home_points: (r) => `has ${n0(r.better)} home-board points instead of ${n0(r.other)}`,
    longer_prime: (r) => `builds a ${n0(r.better)}-point prime instead of ${n0(r.other)}`,
    escapes: (r) => r.better === 0 ? "gets all its back checkers out" : `leaves ${n0(r.better)} back checker${r.better !== 1 ? "s" : ""} behind instead of ${n0(r.other)}`,
    contains: (r) => `blocks ${n0(r.better)} of the 6 points in front of the opponent's rearmost checker instead of ${n0(r.other)}`,
    bears_off: (r) => `bears off ${n0(r.better)} checker${r.better !== 1 ? "s" : ""} instead of ${n0(r.other)}`,
    gammon_chances: (r) => `raises the gammon chances to ${pc(r.better)}% (from ${pc(r.other)}%)`,
    gammon_risk: (r) => `lowers the gammon risk to ${pc(r.better)}% (from ${pc(r.other)}%)`,
  },
  de: {
    sentence: "{better} ist besser als {other}: Der Zug {reasons}.", conj: " und ",
    none: "{better} ist besser als {other}, aber kein einzelnes Merkmal des Bretts sticht heraus; der Unterschied liegt in der Gesamtbewertung.",
    hits: (r) => `schlägt ${r.better === 1 ? "einen Blot" : `${n0(r.better)} Blots`}` + (r.other ? ` (statt ${n0(r.other)})` : ""),
    fewer_shots: (r) => `lässt dem Gegner ${r.better === 0 ? "keinen Schuss" : r.better === 1 ? "nur einen Schuss" : `nur ${n0(r.better)} Schüsse`} von 36 Würfen (statt ${n0(r.other)})`,
    makes_point: (r) => `baut den ${r.point}er-Punkt`,
    makes_anchor: (r) => `baut einen Anker auf dem ${r.point}er-Punkt`,
    home_points: (r) => `hat ${n0(r.better)} Punkte im Heimfeld (statt ${n0(r.other)})`,
    longer_prime: (r) => `baut eine Blockade aus ${n0(r.better)} Punkten in Folge (statt ${n0(r.other)})`,
    escapes: (r) => r.better === 0 ? "bringt alle hinteren Steine heraus" : `hat ${r.better === 1 ? "nur noch einen hinteren Stein" : `nur noch ${n0(r.better)} hintere Steine`} (statt ${n0(r.other)})`,
    contains: (r) => `blockiert ${n0(r.better)} der 6 Punkte vor dem hintersten gegnerischen Stein (statt ${n0(r.other)})`,
    bears_off: (r) => `trägt ${r.better === 1 ? "einen Stein" : `${n0(r.better)} Steine`} ab (statt ${n0(r.other)})`,
    gammon_chances: (r) => `erhöht die Gammon-Chancen auf ${pc(r.better)} % (statt ${pc(r.other)} %)`,
    gammon_risk: (r) => `senkt das Gammon-Risiko auf ${pc(r.better)} % (statt ${pc(r.other)} %)`,
  },
  tr: {
    sentence: "{better} hamlesi {other} hamlesinden daha iyidir: {reasons}.", conj: " ve ",
    none: "{better} hamlesi {other} hamlesinden daha iyidir, ancak tahtada öne çıkan tek bir fark yok; fark genel değerlendirmeden geliyor.",
    hits: (r) => r.other === 0 ? (r.better === 1 ? "bir açık pul kırar" : `${n0(r.better)} açık pul kırar`) : `${n0(r.other)} yerine ${n0(r.better)} açık pul kırar`,
    fewer_shots: (r) => r.better === 0 ? `rakibe hiç vuruş zarı bırakmaz (diğer hamlede 36 zardan ${n0(r.other)})` : `rakibe 36 zardan ${n0(r.other)} yerine yalnızca ${n0(r.better)} vuruş zarı bırakır`,
    makes_point: (r) => `${r.point} numaralı hanede kapı yapar`,
    makes_anchor: (r) => `rakibin evinde, ${r.point} numaralı hanede kapı kurar`,
    home_points: (r) => `evinde ${n0(r.other)} yerine ${n0(r.better)} kapı tutar`,
    longer_prime: (r) => `${n0(r.other)} yerine ${n0(r.better)} kapılık bir blok kurar`,
    escapes: (r) => r.better === 0 ? "geride kalan bütün pulları kurtarır" : `geride ${n0(r.other)} yerine yalnızca ${n0(r.better)} pul bırakır`,
    contains: (r) => `rakibin en gerideki pulunun önündeki 6 haneden ${n0(r.other)} yerine ${n0(r.better)} tanesini kapatır`,
    bears_off: (r) => `${n0(r.other)} yerine ${n0(r.better)} pul toplar`,
    gammon_chances: (r) => `mars şansını %${trSuffix(pc(r.other), "abl")} %${trSuffix(pc(r.better), "dat")} çıkarır`,
    gammon_risk: (r) => `mars olma riskini %${trSuffix(pc(r.other), "abl")} %${trSuffix(pc(r.better), "dat")} indirir`,
  },
};

/** The sentence "X is better than Y: it ..." in the UI's language from {code, better, other, point} reasons. */
function explainReasons(better, other, reasons, fallback = "") {
  const p = PHRASES[lang()] || PHRASES.en;
  if (!reasons || !reasons.length) {
    if (fallback && lang() === "en") return fallback;
    return fallback ? p.none.replace("{better}", better).replace("{other}", other) : "";
  }
  const parts = reasons.map((r) => (p[r.code] || PHRASES.en[r.code] || (() => r.code))(r));
  return p.sentence.replace("{better}", better).replace("{other}", other).replace("{reasons}", parts.join(p.conj));
}

// ---- the view -------------------------------------------------------------------------------------------
const TERMINAL = new Set(["done", "failed", "cancelled"]);
const ANALYSIS_DEPTHS = ["0ply", "1ply", "2ply"];
const NS = "http://www.w3.org/2000/svg";

function svg(name, attrs = {}, parent = null) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) if (v != null) e.setAttribute(k, String(v));
  if (parent) parent.append(e);
  return e;
}

function stateText(state) {
  return t(`an_state_${state}`) === `an_state_${state}` ? state : t(`an_state_${state}`);
}


// The view's state: v = {controller, jobId, watch (the AbortController of the job being watched), cursor,
// loads, jobBox, jobsList, moreButton}; each panel below is a function of it.
export async function mount(el, params) {
  const v = { controller: new AbortController(), jobId: params.job || null, watch: null, cursor: null, loads: 0 };
  el.classList.add("an-view");
  const form = uploadForm(v);
  const jobsBox = jobsPanel(v);
  v.jobBox = h("section", { class: "an-job", id: "an-job", "aria-live": "polite" });
  el.append(h("h1", {}, t("an_title")), form, jobsBox, v.jobBox);
  loadJobs(v);
  if (v.jobId) openJob(v, v.jobId);
  return () => { v.controller.abort(); if (v.watch) v.watch.abort(); };
}

// ---- the upload form
function uploadForm(v) {
  const fileInput = h("input", { type: "file", id: "an-file", name: "file", accept: ".mat,.txt,.sgf,.xg,.gmd", required: true });
  const levelSelect = h("select", { id: "an-level", name: "level" }, ANALYSIS_DEPTHS.map((l) => h("option", { value: l }, l)));
  levelSelect.value = "1ply";
  const submit = h("button", { type: "submit", id: "an-submit" }, t("an_submit"));
  const form = h("form", { class: "an-upload", id: "an-form" },
    h("h2", {}, t("an_upload")),
    h("div", { class: "an-fields" },
      h("label", { for: "an-file" }, t("an_file")), fileInput,
      h("label", { for: "an-level" }, t("an_level")), levelSelect,
      submit));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const file = fileInput.files[0];
    if (!file) { toast(t("an_no_file"), "error"); fileInput.focus(); return; }
    const body = new FormData();
    body.append("file", file, file.name);
    body.append("level", levelSelect.value);
    submit.disabled = true;
    v.jobBox.replaceChildren(h("p", { class: "muted" }, t("an_uploading")));
    try {
      const job = await api("/v1/analyses", { method: "POST", body, signal: v.controller.signal });
      form.reset();
      levelSelect.value = body.get("level");
      loadJobs(v);
      openJob(v, job.id);
    } catch (err) {
      if (err.name !== "AbortError") v.jobBox.replaceChildren(h("p", { class: "error-message", role: "alert" }, problemText(err)));
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}

// ---- your jobs
function jobsPanel(v) {
  v.jobsList = h("ul", { class: "an-jobs", id: "an-jobs" });
  v.moreButton = h("button", { type: "button", id: "an-more", hidden: true }, t("an_more"));
  const refresh = h("button", { type: "button", class: "an-refresh" }, t("an_refresh"));
  refresh.addEventListener("click", () => loadJobs(v));
  v.moreButton.addEventListener("click", () => loadJobs(v, true));
  return h("section", { class: "an-jobs-box", "aria-labelledby": "an-jobs-title" },
    h("div", { class: "an-jobs-head" }, h("h2", { id: "an-jobs-title" }, t("an_jobs")), refresh),
    v.jobsList, v.moreButton);
}

// a newer load of the list wins: an older one that finishes later adds nothing
async function loadJobs(v, more = false) {
  const mine = ++v.loads;
  const after = more ? v.cursor : null;
  const signal = v.controller.signal;
  let page;
  try {
    page = await api(`/v1/analyses?limit=10${after ? `&cursor=${encodeURIComponent(after)}` : ""}`, { signal });
  } catch (e) {
    if (e.name !== "AbortError" && mine === v.loads) {
      if (!more) v.jobsList.replaceChildren();
      v.jobsList.append(h("li", { class: "error-message" }, problemText(e)));
    }
    return;
  }
  const details = await Promise.all(page.jobs.map((j) =>
    api(`/v1/analyses/${encodeURIComponent(j.id)}?games=false`, { signal }).catch(() => null)));
  if (mine !== v.loads) return;
  if (!more) v.jobsList.replaceChildren();
  v.cursor = page.next_cursor || null;
  v.moreButton.hidden = !v.cursor;
  if (!more && !page.jobs.length) v.jobsList.append(h("li", { class: "muted" }, t("an_no_jobs")));
  page.jobs.forEach((j, i) => v.jobsList.append(jobItem(v, j, details[i])));
}

function jobItem(v, j, detail) {
  const m = detail?.matches?.[0];
  const name = m?.filename || m?.players?.join(" – ") || j.id;
  const when = new Date(j.created * 1000).toLocaleString(lang());
  const state = detail?.state || j.state;
  const li = h("li", { class: `an-job-item ${j.id === v.jobId ? "current" : ""}`, dataset: { job: j.id } },
    h("span", { class: "an-job-name" }, name),
    h("span", { class: "muted" }, ` ${when} · ${detail?.level || ""} · `),
    h("span", { class: `an-state ${state}` }, stateText(state)));
  const buttons = h("span", { class: "an-job-buttons" },
    h("button", { type: "button", onclick: () => openJob(v, j.id) }, t("an_open")));
  if (!TERMINAL.has(state)) buttons.append(h("button", { type: "button", class: "an-cancel", onclick: () => cancelJob(v, j.id) }, t("an_cancel")));
  else buttons.append(h("button", { type: "button", class: "an-delete", onclick: () => cancelJob(v, j.id, true) }, t("an_delete")));
  li.append(buttons);
  return li;
}

async function cancelJob(v, id, finished = false) {
  try {
    await api(`/v1/analyses/${encodeURIComponent(id)}`, { method: "DELETE", signal: v.controller.signal });
    toast(t(finished ? "an_deleted" : "an_cancelled"));
    if (finished && id === v.jobId) { v.jobId = null; v.jobBox.replaceChildren(); remember({ view: "analysis" }); }
    else if (id === v.jobId) openJob(v, id);
    loadJobs(v);
  } catch (e) {
    if (e.name !== "AbortError") toast(problemText(e), "error");
  }
}

// ---- the job being watched: its progress, then its results
function progressBox(v, id) {
  const progress = h("progress", { max: 1, value: 0, id: "an-progress" });
  const status = h("p", { class: "an-status", id: "an-status" }, t("an_waiting"));
  const cancel = h("button", { type: "button", class: "an-cancel", id: "an-cancel", onclick: () => cancelJob(v, id) }, t("an_cancel"));
  const show = (job) => {
    progress.value = job.progress ?? 0;
    const parts = [t("an_state", { state: stateText(job.state) }), t("an_progress", { done: job.games_done ?? 0, total: job.games_total ?? "?" })];
    if (job.eta_s != null && !TERMINAL.has(job.state)) parts.push(t("an_eta", { s: Math.ceil(job.eta_s) }));
    status.textContent = parts.join(" · ");
    cancel.hidden = TERMINAL.has(job.state);
  };
  return { box: h("div", { class: "an-progress-box" }, progress, status, cancel), show };
}

async function openJob(v, id) {
  if (v.watch) v.watch.abort();
  v.watch = new AbortController();
  const signal = AbortSignal.any ? AbortSignal.any([v.controller.signal, v.watch.signal]) : v.watch.signal;
  v.jobId = id;
  remember({ view: "analysis", job: id });
  for (const li of v.jobsList.querySelectorAll("li[data-job]")) li.classList.toggle("current", li.dataset.job === id);
  const { box, show } = progressBox(v, id);
  v.jobBox.replaceChildren(box);
  const path = `/v1/analyses/${encodeURIComponent(id)}`;
  let job;
  try {
    job = await api(`${path}?games=false`, { signal });
    show(job);
    if (!TERMINAL.has(job.state)) {
      try {
        await streamEvents(job.events, (name, data) => { job = data; show(data); }, { signal });
      } catch (e) {
        if (e.name === "AbortError") return;
        // the stream broke: poll until the job ends
        while (!TERMINAL.has(job.state)) {
          await new Promise((r) => setTimeout(r, 1000));
          if (signal.aborted) return;
          job = await api(`${path}?games=false`, { signal });
          show(job);
        }
      }
    }
    if (signal.aborted) return;
    show(job);
    const full = await api(path, { signal });
    if (signal.aborted) return;
    renderResults(v, full);
    loadJobs(v);
  } catch (e) {
    if (e.name === "AbortError") return;
    const text = e instanceof ApiError && e.status === 404 ? t("an_not_found") : problemText(e);
    v.jobBox.replaceChildren(h("p", { class: "error-message", role: "alert" }, text));
  }
}

function renderResults(v, job) {
  const box = h("div", { class: "an-results", id: "an-results" });
  const head = v.jobBox.querySelector(".an-progress-box");
  v.jobBox.replaceChildren(...(head ? [head] : []), box);
  if (job.state === "failed" && job.error) box.append(h("p", { class: "error-message" }, t("an_failed", { e: job.error })));
  if (job.games_failed) box.append(h("p", { class: "error-message" }, t("an_failed_games", { n: job.games_failed })));
  const matches = (job.matches || []).filter((m) => m.games && m.games.length);
  if (!matches.length) return;
  const matchBox = h("div", { class: "an-match" });
  if (matches.length > 1) {
    const sel = h("select", { id: "an-match-select" }, matches.map((m) => h("option", { value: m.match }, `${m.match + 1}: ${m.filename || m.players.join(" – ")}`)));
    sel.addEventListener("change", () => renderMatch(v, matchBox, job, matches.find((m) => String(m.match) === sel.value)));
    box.append(h("label", {}, t("an_match"), " ", sel));
  }
  box.append(matchBox);
  renderMatch(v, matchBox, job, matches[0]);
}

// ---- one match: the players' table, the annotated SGF, the graph and the errors
function renderMatch(v, box, job, m) {
  box.replaceChildren();
  const players = m.players || ["?", "?"];
  const desc = m.length ? t("an_match_of", { players: players.join(" – "), n: m.length, level: job.level })
    : t("an_money", { players: players.join(" – "), level: job.level });
  box.append(h("h2", {}, m.filename || players.join(" – ")), h("p", { class: "muted" }, desc));
  box.append(playerTable(m));
  if (m.state === "done") {
    const dl = h("button", { type: "button", id: "an-sgf", class: "an-sgf" }, t("an_download"));
    dl.addEventListener("click", () => downloadSgf(v, m));
    box.append(dl);
  }
  const decisions = m.games.flatMap((g) => g.decisions || []);
  box.append(graph(m, decisions));
  box.append(errorList(m, decisions));
}

function playerTable(m) {
  const ps = m.summary?.players || m.games[0]?.players?.map((p, i) => ({ name: m.players[i], ...p })) || [];
  const rows = [
    ["an_pr", (p) => fmtNum(p.pr)],
    ["an_error_rate", (p) => fmtNum(p.error_rate, 1)],
    ["an_grade", (p) => p.grade || "–"],
    ["an_decisions", (p) => p.decisions ?? "–"],
    ["an_errors_n", (p) => p.errors ?? "–"],
    ["an_blunders_n", (p) => p.blunders ?? "–"],
    ["an_luck", (p) => fmtEq(p.luck?.net_points, 2)],
    ["an_result", (p) => (p.result_points == null ? "–" : fmtNum(p.result_points, 0))],
    ["an_luck_adj", (p) => fmtEq(p.luck_adjusted, 2)],
  ];
  return h("div", { class: "an-table-wrap" }, h("table", { class: "an-players", id: "an-players" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("an_players")), ps.map((p, i) => h("th", { scope: "col" }, p.name || m.players[i])))),
    h("tbody", {}, rows.map(([key, f]) => h("tr", { dataset: { row: key } }, h("th", { scope: "row" }, t(key)), ps.map((p) => h("td", {}, String(f(p)))))))));
}

async function downloadSgf(v, m) {
  try {
    const text = await api(m.sgf, { signal: v.controller.signal });
    const stem = (m.filename || `match-${m.match}`).replace(/\.[^.]*$/, "").replace(/[^A-Za-z0-9_.-]+/g, "_");
    const url = URL.createObjectURL(new Blob([text], { type: "application/x-go-sgf" }));
    const a = h("a", { href: url, download: `${stem}-analysis.sgf`, class: "an-hidden" });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  } catch (e) {
    if (e.name !== "AbortError") toast(problemText(e), "error");
  }
}

// ---- the equity and luck graph
/** The series of the graph: the played equities and the running luck (player 0's view), the marked errors,
 *  the first x of each game. */
function graphSeries(decisions) {
  const eqPts = [], luckPts = [], marks = [], games = [];
  let luck = 0, x = 0, lastGame = -1;
  for (const d of decisions) {
    if (d.game !== lastGame) { games.push([x, d.game]); lastGame = d.game; }
    const sign = d.player === 0 ? 1 : -1;
    if (d.luck && d.luck.value != null) luck += sign * (d.luck.points ?? d.luck.value);
    if (d.kind === "checker" && d.played_equity != null) {
      eqPts.push([x, sign * d.played_equity]);
      luckPts.push([x, luck]);
      if (d.mark === "error" || d.mark === "blunder") marks.push([x, sign * d.played_equity, d]);
      x++;
    } else if (d.mark === "error" || d.mark === "blunder") {
      const e = d.cube ? sign * d.cube.nd : 0;
      marks.push([x, e, d]);
    }
  }
  return { eqPts, luckPts, marks, games, x };
}

function graph(m, decisions) {
  const p0 = m.players?.[0] || "1";
  const W = 800, H1 = 150, H2 = 90, GAP = 24, PADL = 44, PADR = 8, TOP = 8;
  const H = TOP + H1 + GAP + H2 + 22;
  const { eqPts, luckPts, marks, games, x } = graphSeries(decisions);
  const n = Math.max(1, x - 1);
  const eMax = Math.max(1, ...eqPts.map(([, y]) => Math.abs(y)));
  const lMax = Math.max(0.5, ...luckPts.map(([, y]) => Math.abs(y)));
  const X = (i) => PADL + (i / n) * (W - PADL - PADR);
  const Y1 = (y) => TOP + H1 / 2 - (y / eMax) * (H1 / 2 - 4);
  const Y2 = (y) => TOP + H1 + GAP + H2 / 2 - (y / lMax) * (H2 / 2 - 4);
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "an-graph", role: "img", "aria-labelledby": "an-graph-title an-graph-desc" });
  const title = svg("title", { id: "an-graph-title" }, s);
  title.textContent = t("an_graph");
  const panel = (y, hgt) => svg("rect", { x: PADL, y, width: W - PADL - PADR, height: hgt, class: "an-panel" }, s);
  panel(TOP, H1);
  panel(TOP + H1 + GAP, H2);
  svg("line", { x1: PADL, x2: W - PADR, y1: Y1(0), y2: Y1(0), class: "an-zero" }, s);
  svg("line", { x1: PADL, x2: W - PADR, y1: Y2(0), y2: Y2(0), class: "an-zero" }, s);
  const label = (x0, y0, txt, cls = "an-axis") => { const e = svg("text", { x: x0, y: y0, class: cls }, s); e.textContent = txt; return e; };
  label(4, TOP + 12, t("an_equity"));
  label(4, Y1(eMax) + 22, fmtEq(eMax, 1));
  label(4, Y1(-eMax), fmtEq(-eMax, 1));
  label(4, TOP + H1 + GAP + 12, t("an_luck_sum"));
  label(4, TOP + H1 + GAP + H2 - 2, fmtEq(-lMax, 1));
  for (const [gx, g] of games) {
    const gxx = X(Math.max(0, gx - 0.5));
    if (gx > 0) svg("line", { x1: gxx, x2: gxx, y1: TOP, y2: TOP + H1 + GAP + H2, class: "an-game-line" }, s);
    label(gxx + 3, H - 6, t("an_game", { n: g + 1 }), "an-axis an-game-label");
  }
  const path = (pts, Y, cls) => {
    if (!pts.length) return;
    svg("polyline", { points: pts.map(([i, y]) => `${X(i).toFixed(1)},${Y(y).toFixed(1)}`).join(" "), class: cls }, s);
  };
  path(eqPts, Y1, "an-eq-line");
  path(luckPts, Y2, "an-luck-line");
  for (const [i, y, d] of marks) {
    const c = svg("circle", { cx: X(Math.min(i, n)), cy: Y1(y), r: 5, class: `an-mark ${d.mark}` }, s);
    const tt = svg("title", {}, c);
    tt.textContent = `${t("an_game", { n: d.game + 1 })}, ${d.move}: ${d.played} → ${d.best} (${t(`an_mark_${d.mark}`)})`;
  }
  return h("figure", { class: "an-figure" }, s,
    h("figcaption", { id: "an-graph-desc", class: "muted" }, t("an_graph_desc", { p: p0 })));
}

// ---- the errors and blunders, each with its board
function errorList(m, decisions) {
  const errs = decisions.filter((d) => d.mark === "error" || d.mark === "blunder");
  const players = m.players || ["?", "?"];
  const filter = h("select", { id: "an-filter" },
    h("option", { value: "all" }, t("an_filter_all")),
    h("option", { value: "blunder" }, t("an_filter_blunders")),
    players.map((p, i) => h("option", { value: `p${i}` }, t("an_filter_player", { p }))));
  const list = h("ol", { class: "an-errors", id: "an-errors" });
  const render = () => {
    const v = filter.value;
    const shown = errs.filter((d) => v === "all" || (v === "blunder" ? d.mark === "blunder" : `p${d.player}` === v));
    list.replaceChildren(...shown.map((d) => errorItem(d, players)));
    if (!shown.length) list.append(h("li", { class: "muted an-none" }, t("an_none")));
  };
  filter.addEventListener("change", render);
  render();
  return h("section", { class: "an-errors-box", "aria-labelledby": "an-errors-title" },
    h("div", { class: "an-errors-head" }, h("h3", { id: "an-errors-title" }, `${t("an_errors")} (${errs.length})`),
      h("label", {}, t("an_filter"), " ", filter)),
    list);
}

/** A decision's small board; draw(notation) shows a play's arrows on it. */
function decisionBoard(d, who) {
  const boardBox = h("div", { class: "an-board" });
  let arrays = null;
  try { arrays = decodePositionId(d.position_id); } catch { arrays = null; }
  const cube = decodeMatchCube(d.match_id);
  const draw = (notation) => {
    if (!arrays) return;
    const board = boardFromPosition(arrays.mine, arrays.theirs);
    board.dice = d.dice || null;
    if (cube) board.cube = { value: cube.value, owner: cube.owner == null ? null : cube.owner === d.player ? "bottom" : "top" };
    drawBoard(boardBox, board, { small: true, arrows: d.kind === "checker" ? arrowsOfNotation(notation) : [],
      label: `${t("an_item", { g: d.game + 1, m: d.move, p: who })}: ${notation}` });
  };
  return { boardBox, draw };
}

function errorItem(d, players) {
  const who = players[d.player] || `#${d.player + 1}`;
  const { boardBox, draw } = decisionBoard(d, who);
  draw(d.best);
  const heading = d.kind === "checker" && d.dice ? t("an_to_play", { p: who, d: `${d.dice[0]}${d.dice[1]}` }) : t("an_cube_action", { p: who });
  const body = h("div", { class: "an-error-text" },
    h("h4", {}, h("span", { class: `an-badge ${d.mark}` }, t(`an_mark_${d.mark}`)), " ",
      t("an_item", { g: d.game + 1, m: d.move, p: heading })),
    h("p", { class: "an-played" }, h("strong", {}, `${t("an_played")}: `), d.played || "–",
      h("span", { class: "an-loss" }, ` (${t("an_loss", { x: fmtNum(-d.loss, 3) })})`)),
    h("p", { class: "an-best" }, h("strong", {}, `${t("an_better")}: `), d.best || "–"));
  if (d.category) body.append(h("p", { class: "muted" }, d.category));
  if (d.kind === "checker") {
    const text = explainReasons(d.best, d.played, d.reasons, d.explanation);
    if (text) body.append(h("p", { class: "an-explanation" }, text));
    const bPlayed = h("button", { type: "button", "aria-pressed": "false" }, t("an_show_played"));
    const bBetter = h("button", { type: "button", "aria-pressed": "true" }, t("an_show_better"));
    bPlayed.addEventListener("click", () => { draw(d.played); bPlayed.setAttribute("aria-pressed", "true"); bBetter.setAttribute("aria-pressed", "false"); });
    bBetter.addEventListener("click", () => { draw(d.best); bPlayed.setAttribute("aria-pressed", "false"); bBetter.setAttribute("aria-pressed", "true"); });
    body.append(h("div", { class: "an-toggle" }, bPlayed, bBetter));
    if (d.candidates?.length) body.append(candidateList(d, draw));
  } else if (d.cube) {
    body.append(h("p", { class: "an-explanation" }, `${d.cube.action}: ${t("an_cube_eq", { nd: fmtEq(d.cube.nd), dt: fmtEq(d.cube.dt), dp: fmtEq(d.cube.dp) })}`));
  }
  if (d.plan) body.append(h("p", { class: "muted an-plan" }, d.plan));
  return h("li", { class: `an-error ${d.mark}`, dataset: { game: d.game, move: d.move } }, boardBox, body);
}

/** Every candidate the analysis valued (up to its setting, the played one included), each shown on the board. */
function candidateList(d, draw) {
  return h("details", { class: "an-candidates" }, h("summary", {}, t("an_candidates", { n: d.candidates.length })),
    h("ol", {}, d.candidates.map((c) => h("li", { dataset: { play: c.notation } },
      h("button", { type: "button", class: "play-button", onclick: () => draw(c.notation) }, c.notation),
      ` ${fmtEq(c.equity)}`, c.loss ? h("span", { class: "an-loss" }, ` (${t("an_loss", { x: fmtNum(-c.loss, 3) })})`) : "",
      c.notation === d.played ? h("span", { class: "muted" }, ` · ${t("an_played")}`) : ""))));
}

