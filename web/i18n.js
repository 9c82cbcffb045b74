// The page's languages: English, Simplified and Traditional Chinese. The language is
// `?lang=` if given, else the one remembered from the switcher (localStorage), else
// the first of navigator.languages this page speaks. Every visible string goes
// through `t(key, params)`; the dictionaries hold the same keys (tests/i18n.test.js).

import EN from './strings-en.js';
import ZH_HANS from './strings-zh-hans.js';
import ZH_HANT from './strings-zh-hant.js';

/** @type {Record<string, Record<string, string>>} */
export const DICTIONARIES = { en: EN, 'zh-Hans': ZH_HANS, 'zh-Hant': ZH_HANT };
export const LANGUAGES = Object.keys(DICTIONARIES);
/** Each language in its own words (the switcher, a notification channel's language). */
export const LANGUAGE_NAMES = { en: 'English', 'zh-Hans': '简体中文', 'zh-Hant': '繁體中文' };
const STORE = 'catan.lang';

/**
 * The language for a browser whose preferences are `preferred` (BCP 47 tags, best
 * first): zh-TW, zh-HK, zh-MO and any zh-Hant-* are Traditional, other zh Simplified.
 * @param {readonly string[]} preferred
 */
export function pickLanguage(preferred) {
  for (const tag of preferred || []) {
    const l = tag.toLowerCase();
    if (l.startsWith('zh')) return /hant|-tw|-hk|-mo/.test(l) ? 'zh-Hant' : 'zh-Hans';
    if (l.startsWith('en')) return 'en';
  }
  return 'en';
}

function initial() {
  const g = /** @type {any} */ (globalThis);
  const asked = g.location ? new URLSearchParams(g.location.search).get('lang') : null;
  if (asked && DICTIONARIES[asked]) { g.localStorage?.setItem(STORE, asked); return asked; }
  const kept = g.localStorage?.getItem(STORE);
  if (kept && DICTIONARIES[kept]) return kept;
  return pickLanguage(g.navigator?.languages || []);
}

let lang = initial();

export const language = () => lang;

/** Switches and remembers the language. @param {string} l */
export function setLanguage(l) {
  if (!DICTIONARIES[l]) return;
  lang = l;
  /** @type {any} */ (globalThis).localStorage?.setItem(STORE, l);
}

/**
 * The text of `key` in the page's language, `{name}` replaced by `params.name`.
 * @param {string} key
 * @param {Record<string, string | number>} [params]
 */
export function t(key, params = {}) {
  const s = DICTIONARIES[lang][key] ?? EN[key] ?? key;
  return s.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
}

/** Whether `key` exists (e.g. an error code's translation). @param {string} key */
export const has = (key) => key in EN;

/**
 * A refusal in words: the translation of its stable code, else the server's message.
 * @param {{ code?: string, message?: string }} e
 */
export function refusal(e) {
  // (A refused origin is named: the address the page was opened at.)
  const params = { origin: /** @type {any} */ (globalThis).location?.origin ?? '' };
  return e.code && has(`err.${e.code}`) ? t(`err.${e.code}`, params) : (e.message || t('err.unknown'));
}

/** Cards in words: "2 brick, 1 ore" / "2 砖块、1 矿石". @param {import('./protocol').Resources | Record<string, number> | undefined} cards */
export function cardsText(cards) {
  const parts = ['lumber', 'brick', 'wool', 'grain', 'ore'].filter((k) => cards?.[k]).map((k) => t('n_res', { n: cards[k], res: t(`res.${k}`) }));
  return parts.length ? parts.join(t('list_sep')) : t('nothing');
}
