// English, German and Turkish: t("key", {name: value}) with {name} placeholders; views add their own messages.
const LANGS = ["en", "de", "tr"];
const messages = { en: {}, de: {}, tr: {} };
let current = "en";

/** Add messages: addMessages({en: {key: "..."}, de: {...}, tr: {...}}). */
export function addMessages(table) {
  for (const lang of LANGS) Object.assign(messages[lang], table[lang] || {});
}

export function lang() {
  return current;
}

export function setLang(code) {
  current = LANGS.includes(code) ? code : "en";
  localStorage.setItem("pulvezar.lang", current);
  document.documentElement.lang = current;
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
}

export function initialLang() {
  const saved = localStorage.getItem("pulvezar.lang");
  if (saved) return saved;
  for (const l of navigator.languages || []) if (LANGS.includes(l.slice(0, 2))) return l.slice(0, 2);
  return "en";
}

export function t(key, params = {}) {
  const text = messages[current][key] ?? messages.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, k) => (params[k] ?? `{${k}}`));
}

addMessages({
  en: { language: "Language", api_key: "API key", cancel: "Cancel", save: "Save", loading: "Loading…",
        nav_position: "Position", nav_play: "Play", nav_analysis: "Analysis", nav_book: "Opening book",
        nav_daily: "Daily", nav_statistics: "Statistics", nav_cards: "Cards", nav_library: "Library", nav_training: "Training", nav_met: "Match equity", nav_deep: "Deep analysis", nav_similar: "Similar", nav_replay: "Replay", error: "Error", key_needed: "The API key was refused: enter yours." },
  de: { language: "Sprache", api_key: "API-Schlüssel", cancel: "Abbrechen", save: "Speichern", loading: "Lädt…",
        nav_position: "Stellung", nav_play: "Spielen", nav_analysis: "Analyse", nav_book: "Eröffnungsbuch",
        nav_daily: "Täglich", nav_statistics: "Statistik", nav_cards: "Karten", nav_library: "Bibliothek", nav_training: "Training", nav_met: "Match-Equity", nav_deep: "Tiefenanalyse", nav_similar: "Ähnliche", nav_replay: "Wiedergabe", error: "Fehler", key_needed: "Der API-Schlüssel wurde abgelehnt: bitte eigenen eingeben." },
  tr: { language: "Dil", api_key: "API anahtarı", cancel: "İptal", save: "Kaydet", loading: "Yükleniyor…",
        nav_position: "Pozisyon", nav_play: "Oyna", nav_analysis: "Analiz", nav_book: "Açılış kitabı",
        nav_daily: "Günlük", nav_statistics: "İstatistik", nav_cards: "Kartlar", nav_library: "Kütüphane", nav_training: "Antrenman", nav_met: "Maç eşitliği", nav_deep: "Derin analiz", nav_similar: "Benzer", nav_replay: "Tekrar", error: "Hata", key_needed: "API anahtarı reddedildi: kendi anahtarınızı girin." },
});
