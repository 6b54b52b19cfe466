// The client's words in four languages. The strings are the program's translation files
// (`locales/LANG.json` at the repository's root, served at /locales/), the same files the Rust
// side reads; `t` is the one lookup. The language comes from `?lang=` in the URL, else the one
// chosen before (localStorage), else the browser's (navigator.languages), else English; it is
// kept in the URL and in localStorage, and `<html lang>` follows it.

export const LANGS = { en: 'English', pt: 'Português', es: 'Español', it: 'Italiano' };
const STORE = 'mancala.lang';

function known(code) {
  const c = String(code || '').toLowerCase().split(/[-_]/)[0];
  return Object.prototype.hasOwnProperty.call(LANGS, c) ? c : null;
}

function pick() {
  const url = known(new URLSearchParams(location.search).get('lang'));
  if (url) return url;
  let saved = null;
  try { saved = known(localStorage.getItem(STORE)); } catch { /* storage off */ }
  if (saved) return saved;
  for (const l of navigator.languages || [navigator.language]) {
    const k = known(l);
    if (k) return k;
  }
  return 'en';
}

export const lang = pick();
try { localStorage.setItem(STORE, lang); } catch { /* storage off */ }
// Kept in the URL, so a link or a reload keeps the language.
if (new URLSearchParams(location.search).get('lang') !== lang) {
  const u = new URL(location.href);
  u.searchParams.set('lang', lang);
  history.replaceState(history.state, '', u);
}
document.documentElement.lang = lang;

async function load(code) {
  const res = await fetch(`/locales/${code}.json`);
  if (!res.ok) throw new Error(`/locales/${code}.json: ${res.status}`);
  return res.json();
}
const table = await load(lang).catch(() => (lang === 'en' ? {} : load('en').catch(() => ({}))));

// The string of `key` with each {name} replaced by args[name]; the key itself where the
// files lack it (the tests forbid that).
export function t(key, args = {}) {
  const s = Object.prototype.hasOwnProperty.call(table, key) ? table[key] : key;
  return s.replace(/\{(\w+)\}/g, (m, name) => (Object.prototype.hasOwnProperty.call(args, name) ? String(args[name]) : m));
}

// `key.one` where n is 1, else `key.other`, with n among the args.
export function tn(key, n, args = {}) {
  return t(`${key}.${n === 1 ? 'one' : 'other'}`, { n, ...args });
}

// Switches the language: kept in localStorage and the URL, and the page is drawn again.
export function setLang(code) {
  const k = known(code);
  if (!k || k === lang) return;
  try { localStorage.setItem(STORE, k); } catch { /* storage off */ }
  const u = new URL(location.href);
  u.searchParams.set('lang', k);
  location.replace(u);
}

// The side's name (`south` → South, Sul, Sur, Sud).
export function side(s) { return t(s === 'south' ? 'side.south' : 'side.north'); }

// A message the server sends as a key and its arguments: an argument is a text, a side
// (`south`, `north`: named) or a message of its own (`{key, args}`: said the same way).
export function message(m) {
  if (!m || !m.key) return '';
  const args = {};
  for (const [k, v] of Object.entries(m.args || {})) {
    if (v && typeof v === 'object') args[k] = message(v);
    else if (k === 'side' && (v === 'south' || v === 'north')) args[k] = side(v);
    else args[k] = v;
  }
  return t(m.key, args);
}

// An error answer of the server (`{error, key, args}`) in the reader's language; its English
// `error` where it has no key the files know.
export function errorText(data) {
  if (!data) return '';
  if (data.key && Object.prototype.hasOwnProperty.call(table, data.key)) return message(data);
  return data.error || '';
}

// Every element of `root` with a `data-i18n` key gets its string as text (`data-i18n-attr`
// names an attribute to fill instead).
export function fill(root = document) {
  for (const el of root.querySelectorAll('[data-i18n]')) {
    const attr = el.dataset.i18nAttr;
    if (attr) el.setAttribute(attr, t(el.dataset.i18n));
    else el.textContent = t(el.dataset.i18n);
  }
}
