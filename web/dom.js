// Building the page and redrawing it in place. `h` builds elements whose handlers
// are kept on the element (`__on`), so that `morph` can bring an element on the page
// up to date with a freshly built one without replacing it: a button under a finger
// or a mouse stays the same element through a redraw (its click is not lost), a die
// keeps its animation, a focused field its focus. Elements are matched by `id` or
// `data-key`, else by tag in order.

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * Adds a handler the way `h` does: one listener per event type on the element,
 * calling whichever handler the element holds when the event comes.
 * @param {Element} el @param {string} type @param {(e: any) => void} fn
 */
export function on(el, type, fn) {
  const any = /** @type {any} */ (el);
  if (!any.__on) any.__on = {};
  if (!any.__on[type]) el.addEventListener(type, (e) => any.__on[type]?.(e));
  any.__on[type] = fn;
}

/**
 * An HTML element: attributes (`on<event>` functions become handlers; `class`,
 * `value` and `checked` as properties; false, null and undefined left out) and
 * children (nested arrays flattened, null and false left out).
 * @param {string} tag
 * @param {Record<string, any>} [attrs]
 * @param {...any} children
 * @returns {HTMLElement & { value?: any }}
 */
export function h(tag, attrs = {}, ...children) {
  const e = /** @type {any} */ (document.createElement(tag));
  setAttrs(e, attrs);
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/** An SVG element, attributes as `h`'s. @returns {SVGElement} */
export function s(tag, attrs = {}, ...children) {
  const e = /** @type {any} */ (document.createElementNS(SVG_NS, tag));
  setAttrs(e, attrs);
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function setAttrs(e, attrs) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') on(e, k.slice(2), v);
    else if (k === 'class') e.setAttribute('class', v);
    else if (k === 'value') { e.value = v; e.setAttribute('value', String(v)); } else if (k === 'checked') e.checked = !!v;
    else e.setAttribute(k, v === true ? '' : String(v));
  }
}

const keyOf = (n) => (n instanceof Element ? n.getAttribute('data-key') || n.id || null : null);
const same = (a, b) => a.nodeType === b.nodeType && a.nodeName === b.nodeName
  && (!(a instanceof Element) || a.namespaceURI === /** @type {Element} */ (b).namespaceURI) && keyOf(a) === keyOf(b);

/**
 * Brings `from` (on the page) up to date with `to` (just built) and answers the node
 * now on the page: `from` itself, updated in place, when both are the same kind of
 * node with the same key; else `to`, put in its place.
 * @template {Node} T
 * @param {Node} from @param {T} to
 * @returns {Node}
 */
export function morph(from, to) {
  if (!same(from, to)) { from.parentNode?.replaceChild(to, from); return to; }
  if (from.nodeType === Node.TEXT_NODE || from.nodeType === Node.COMMENT_NODE) {
    if (from.nodeValue !== to.nodeValue) from.nodeValue = to.nodeValue;
    return from;
  }
  const a = /** @type {any} */ (from);
  const b = /** @type {any} */ (to);
  for (const { name } of [...a.attributes]) if (!b.hasAttribute(name)) a.removeAttribute(name);
  for (const { name, value } of b.attributes) if (a.getAttribute(name) !== value) a.setAttribute(name, value);
  // Handlers: the new element's, through the old element's listeners.
  if (b.__on) for (const [type, fn] of Object.entries(b.__on)) on(a, type, fn);
  if (a.__on) for (const type of Object.keys(a.__on)) if (!b.__on?.[type]) a.__on[type] = null;
  // Properties the attributes do not carry; a field being typed in keeps its text.
  if (a instanceof HTMLInputElement || a instanceof HTMLSelectElement || a instanceof HTMLTextAreaElement) {
    const typing = a === document.activeElement && !(a instanceof HTMLSelectElement) && a.type !== 'range';
    if (!typing && a.value !== b.value) a.value = b.value;
    if (a instanceof HTMLInputElement && a.checked !== b.checked) a.checked = b.checked;
  }
  morphChildren(from, to);
  return from;
}

/**
 * The children of `parent` brought up to date with `to`'s (which are moved out of
 * `to` as they are used).
 * @param {Node} parent @param {Node} to
 */
export function morphChildren(parent, to) {
  const old = [...parent.childNodes];
  /** @type {Map<string, Node>} */
  const keyed = new Map();
  for (const n of old) { const k = keyOf(n); if (k) keyed.set(k, n); }
  const used = new Set();
  let i = 0; // the next unkeyed old child to consider
  const wanted = [...to.childNodes];
  /** @type {Node[]} */
  const result = [];
  for (const n of wanted) {
    const k = keyOf(n);
    let match = null;
    if (k) match = keyed.get(k) || null;
    else {
      while (i < old.length && (used.has(old[i]) || keyOf(old[i]))) i += 1;
      if (i < old.length && same(old[i], n)) match = old[i];
      if (match) i += 1;
    }
    if (match && !used.has(match) && same(match, n)) {
      used.add(match);
      result.push(morph(match, n));
    } else {
      result.push(n);
    }
  }
  for (const n of old) if (!used.has(n)) n.parentNode?.removeChild(n);
  // Into place, moving only what is not already there.
  let cursor = parent.firstChild;
  for (const n of result) {
    if (n === cursor) { cursor = cursor.nextSibling; continue; }
    parent.insertBefore(n, cursor);
  }
}

/**
 * A part of the page drawn by `draw` into the element `slot`, redrawn only when
 * `key()` (a cheap summary of everything `draw` reads) changes, and then in place.
 */
export class Part {
  /**
   * @param {() => string} key
   * @param {() => Node | Node[] | null} draw
   */
  constructor(key, draw) {
    this.key = key;
    this.draw = draw;
    /** @type {string | null} */
    this.last = null;
    /** How often it was drawn (for the tests: a message redraws only what it changed). */
    this.draws = 0;
  }

  /** Redraws into `slot` if what it shows changed (or `force`); answers whether it did. */
  update(slot, force = false) {
    const k = this.key();
    if (!force && k === this.last && slot.dataset.drawn === '1') return false;
    this.last = k;
    this.draws += 1;
    const drawn = this.draw();
    const box = document.createElement('div');
    for (const n of [drawn].flat()) if (n) box.append(n);
    morphChildren(slot, box);
    slot.dataset.drawn = '1';
    return true;
  }
}
