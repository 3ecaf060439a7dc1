// The UI's messages: one catalog per language, messages/<code>.json, a flat object of keys named by view and
// purpose ("play.roll") with {name} placeholders; messages/languages.json lists the languages offered
// ({code: its own name}, in the menu's order). A new language is a new catalog and its line in that list.
// A message is a string, or an object of plural forms chosen by the value `n`: exact forms first ("=0", "=1"),
// then the language's CLDR category ("one", "few", "many", "other"; Intl.PluralRules). A placeholder may name
// a formatter, {n:abl}: see FORMATTERS. The catalogs are fetched (JSON: data, not code; see docs/web.md).
const BASE = new URL("./messages/", import.meta.url);

async function fetchJson(name) {
  const r = await fetch(new URL(name, BASE));
  if (!r.ok) throw new Error(`${name}: HTTP ${r.status}`);
  return r.json();
}

/** The languages offered: {code: name}. */
export const LANGUAGES = await fetchJson("languages.json");
const LANGS = Object.keys(LANGUAGES);
const catalogs = new Map(); // code -> catalog (a promise while it loads)
const load = (code) => {
  if (!catalogs.has(code)) catalogs.set(code, fetchJson(`${code}.json`));
  return catalogs.get(code);
};
// English is the fallback of a key a catalog lacks (the tests forbid that; a key never shows as itself)
const english = await load("en");
let current = "en";
let messages = english;
let plurals = new Intl.PluralRules("en");
let switching = 0;

export function lang() {
  return current;
}

/** Switch to a language offered (else English): loads its catalog, then relabels the page's [data-i18n]. */
export async function setLang(code) {
  const next = LANGS.includes(code) ? code : "en";
  const seq = ++switching;
  const loaded = await load(next);
  if (seq !== switching) return; // a later switch overtook this one
  current = next;
  messages = loaded;
  plurals = new Intl.PluralRules(next);
  localStorage.setItem("pulvezar.lang", current);
  document.documentElement.lang = current;
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
}

/** The language of the first visit: the one chosen before, else the browser's first one offered, else English. */
export function initialLang() {
  const saved = localStorage.getItem("pulvezar.lang");
  if (saved) return saved;
  for (const l of navigator.languages || []) if (LANGS.includes(l.slice(0, 2))) return l.slice(0, 2);
  return "en";
}

// Turkish case suffixes after a number, as it is read: {n:abl} "12'den" (from), {n:dat} "12'ye" (to)
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

/** Formatters a placeholder may name ({value:name}); grammar a catalog cannot spell out with plural forms. */
const FORMATTERS = {
  abl: (v) => trSuffix(Number(v), "abl"),
  dat: (v) => trSuffix(Number(v), "dat"),
};

function pick(forms, n) {
  if (n != null && forms[`=${n}`] != null) return forms[`=${n}`];
  return forms[n != null ? plurals.select(Number(n)) : "other"] ?? forms.other;
}

// Numbers and dates in the UI's language (Intl): "0,123" in German, "12.03.2026, 14:05" and the like
const numberFormats = new Map(); // "lang digits" -> Intl.NumberFormat

/** `x` with `digits` decimals in the UI's language (no grouping, the sign as given): 0.123, 0,123. */
export function formatNumber(x, digits = 0) {
  const k = `${current} ${digits}`;
  if (!numberFormats.has(k)) {
    numberFormats.set(k, new Intl.NumberFormat(current, { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false }));
  }
  return numberFormats.get(k).format(x);
}

/** A date and time (a Date, or seconds since the epoch) in the UI's language; `options` as Intl.DateTimeFormat's. */
export function formatDate(when, options = { dateStyle: "medium", timeStyle: "short" }) {
  const d = when instanceof Date ? when : new Date(when * 1000);
  return new Intl.DateTimeFormat(current, options).format(d);
}

/** The message `key` in the UI's language with its {placeholders} filled from `values`; the key if none. */
export function t(key, values = {}) {
  let text = messages[key] ?? english[key] ?? key;
  if (typeof text === "object") text = pick(text, values.n) ?? key;
  return text.replace(/\{(\w+)(?::(\w+))?\}/g, (whole, k, f) => {
    if (values[k] == null) return whole;
    return f && FORMATTERS[f] ? FORMATTERS[f](values[k]) : values[k];
  });
}
