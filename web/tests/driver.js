// The small browser driver the browser tests are written against: one `Tab` API over
// puppeteer-core, which drives Debian's Chromium over the DevTools protocol and
// Debian's stock Firefox ESR over WebDriver BiDi (no patched browser, no download).
//
// Browsers by name: `chromium` (/usr/bin/chromium, or $CATAN_CHROMIUM) and `firefox`
// (/usr/bin/firefox-esr, or $CATAN_FIREFOX).

import puppeteer from 'puppeteer-core';

export const BROWSERS = {
  chromium: {
    executable: process.env.CATAN_CHROMIUM || '/usr/bin/chromium',
    options: {
      browser: 'chrome',
      protocol: 'cdp',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  },
  firefox: {
    executable: process.env.CATAN_FIREFOX || '/usr/bin/firefox-esr',
    options: {
      browser: 'firefox',
      protocol: 'webDriverBiDi',
      extraPrefsFirefox: {
        // No network but the test server's.
        'network.captive-portal-service.enabled': false,
        'network.connectivity-service.enabled': false,
        'browser.safebrowsing.update.enabled': false,
        // A name of the loopback that the server does not take for its own origin
        // (self-hoster.js; Chromium resolves every *.localhost to the loopback).
        'network.dns.localDomains': 'refused.localhost',
      },
    },
  },
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The longest one protocol call of a wait lasts (well under `protocolTimeout`). */
const WAIT_SLICE = 20000;

/**
 * Launches browser `name` headless; `reducedMotion` for a Firefox that prefers
 * reduced motion (Chromium's pages emulate it instead: `emulateMediaFeatures`);
 * `args`, command-line switches of one scenario's own browser (notify.js: Chromium's
 * GCM switches, read at start only).
 */
export async function launch(name, { reducedMotion = false, args = [] } = {}) {
  const spec = BROWSERS[name];
  if (!spec) throw new Error(`unknown browser ${name} (known: ${Object.keys(BROWSERS).join(', ')})`);
  let options = reducedMotion && name === 'firefox'
    ? { ...spec.options, extraPrefsFirefox: { ...spec.options.extraPrefsFirefox, 'ui.prefersReducedMotion': 1 } }
    : spec.options;
  if (args.length) options = { ...options, args: [...(options.args ?? []), ...args] };
  const browser = await puppeteer.launch({
    ...options,
    executablePath: spec.executable,
    headless: true,
    protocolTimeout: 60000,
  });
  return new Browser(name, browser);
}

export class Browser {
  constructor(name, browser) {
    this.name = name;
    this.browser = browser;
  }

  /** The browser's own product and version, e.g. `firefox/153.8.0`. */
  version() { return this.browser.version(); }

  /**
   * A new tab of the given viewport size. `isolated` opens it in a fresh browser
   * context (own cookies and localStorage), as a second person on another device.
   */
  async newTab({ width = 1280, height = 900, isolated = false, sameAs = null } = {}) {
    // `sameAs`: a tab whose context (cookies, localStorage) the new one shares, as a
    // second tab of the same person on the same device.
    if (sameAs) isolated = false;
    const context = sameAs ? sameAs.page.browserContext()
      : isolated ? await this.browser.createBrowserContext() : this.browser.defaultBrowserContext();
    // Each in its own window, so that every tab is in front: browsers throttle
    // timers and pause animation frames in background tabs.
    const page = await context.newPage({ type: 'window' });
    await page.setViewport({ width, height });
    page.setDefaultTimeout(30000);
    const tab = new Tab(page, isolated ? context : null, this);
    this.front = tab;
    return tab;
  }

  close() { return this.browser.close(); }
}

export class Tab {
  constructor(page, context, owner = null) {
    this.page = page;
    this.context = context;
    /** The Browser: which of its tabs is in front (the last one opened or brought there). */
    this.owner = owner;
    /**
     * Keyboard mode: `click`, `tryClick` and `clickNth` reach their element with the
     * Tab key, as a person without a mouse would, and press Enter on it.
     */
    this.keyboard = false;
    /** Keys pressed in keyboard mode (Tab and Enter). */
    this.keys = 0;
    /** Uncaught exceptions and console errors of the page. */
    this.errors = [];
    page.on('pageerror', (e) => this.errors.push(String(e?.message ?? e)));
    page.on('console', (m) => { if (m.type() === 'error') this.errors.push(m.text()); });
  }

  async goto(url) { await this.page.goto(url, { waitUntil: 'load' }); }

  async reload() { await this.page.reload({ waitUntil: 'load' }); }

  url() { return this.page.url(); }

  /** Waits until the tab's URL matches `re`. */
  async waitForURL(re, timeout = 30000) {
    const end = Date.now() + timeout;
    while (!re.test(this.page.url())) {
      if (Date.now() > end) throw new Error(`URL ${this.page.url()} does not match ${re}`);
      await sleep(50);
    }
  }

  /** Runs `fn(arg)` in the page. */
  evaluate(fn, arg) { return this.page.evaluate(fn, arg); }

  // The queries below run in one round trip each (unlike puppeteer's `$eval`, which
  // holds an element between two), since the client re-renders often.

  /** Number of elements matching `sel` (0 while the page navigates). */
  async count(sel) {
    return this.page.evaluate((s) => document.querySelectorAll(s).length, sel).catch(() => 0);
  }

  /** Whether some element matching `sel` is rendered. */
  async visible(sel) {
    return this.page.evaluate((s) => [...document.querySelectorAll(s)].some((e) => e.getClientRects().length > 0
      && (!e.checkVisibility || e.checkVisibility({ visibilityProperty: true }))), sel)
      .catch(() => false);
  }

  /** Whether the first element matching `sel` exists and is not disabled. */
  async enabled(sel) {
    return this.page.evaluate((s) => { const e = document.querySelector(s); return !!e && !e.disabled; }, sel)
      .catch(() => false);
  }

  /** Text of the first element matching `sel` ('' if none). */
  async text(sel) {
    return this.page.evaluate((s) => document.querySelector(s)?.textContent ?? '', sel).catch(() => '');
  }

  /** Attribute `name` of the first element matching `sel` (null if none). */
  async attr(sel, name) {
    return this.page.evaluate(([s, n]) => document.querySelector(s)?.getAttribute(n) ?? null, [sel, name]);
  }

  /** Value of the first input matching `sel`. */
  async value(sel) {
    return this.page.evaluate((s) => document.querySelector(s)?.value, sel);
  }

  /**
   * Clicks the first element matching `sel` once it is visible, enabled and what a
   * person would hit at its middle (nothing covers it); retries until then. The
   * checks and the click run in one task of the page, so a redraw cannot come
   * between them (the page redraws often; a mouse press and release a round trip
   * apart could land on two different elements and be lost).
   */
  async click(sel, timeout = 10000) {
    if (this.keyboard) {
      if (await this.press(sel, timeout)) return;
      throw new Error(`keyboard: no focusable, enabled ${sel} reached with Tab within ${timeout} ms`);
    }
    const end = Date.now() + timeout;
    for (;;) {
      const why = await this.page.evaluate((s) => {
        const e = document.querySelector(s);
        if (!e) return 'not found';
        if (e.disabled) return 'disabled';
        e.scrollIntoView({ block: 'nearest', inline: 'nearest' });
        const r = e.getBoundingClientRect();
        if (!r.width || !r.height) return 'not visible';
        const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
        if (!hit || !(hit === e || e.contains(hit))) return 'covered';
        if (typeof e.click === 'function') e.click();
        else e.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, view: window }));
        return '';
      }, sel).catch((e) => String(e?.message ?? e));
      if (!why) return;
      if (Date.now() > end) throw new Error(`click ${sel}: ${why} after ${timeout} ms`);
      await sleep(50);
    }
  }

  /**
   * Moves the focus with Tab (at most twice around the page's focusable elements)
   * until an enabled element matching `sel` has it, then presses Enter; false when
   * none was reached within `timeout`.
   */
  async press(sel, timeout = 2000) {
    if (!(await this.tabTo(sel, timeout))) return false;
    this.keys += 1;
    await this.page.keyboard.press('Enter');
    return true;
  }

  /**
   * Moves the focus with Tab, or Shift+Tab when the target is above the focus (as a
   * person would; past the page's end the focus would leave for the browser's own
   * controls, and headless Firefox then presses nothing with Enter), at most twice
   * around the page's focusable elements, until an enabled element matching `sel`
   * has it; false when none was reached within `timeout`. Counts the keys pressed.
   */
  async tabTo(sel, timeout = 2000) {
    await this.toFront();
    const end = Date.now() + timeout;
    const onTarget = (s) => {
      // The focus left the page (Tab past its last control goes to the browser's
      // own): the element it left keeps being the active one, but Enter presses
      // nothing. Tab brings the focus back in at the page's top.
      if (!document.hasFocus()) return 'Tab';
      const e = document.activeElement;
      if (!!e && e !== document.body && e.matches(s) && !e.disabled) return 'here';
      // No target to reach (not there yet, or gone: an offer closed while its
      // withdraw button was sought): wait, as a person would, rather than tab
      // round the page and out of it.
      const target = [...document.querySelectorAll(s)].find((x) => !x.disabled && x.getClientRects().length > 0);
      if (!target) return 'wait';
      if (!e || e === document.body) return 'Tab';
      // eslint-disable-next-line no-bitwise
      return e.compareDocumentPosition(target) & Node.DOCUMENT_POSITION_PRECEDING ? 'Shift+Tab' : 'Tab';
    };
    try {
      const round = await this.page.evaluate(() => document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]').length);
      for (let i = 0; i <= 2 * round + 2 && Date.now() <= end; i++) {
        const way = await this.page.evaluate(onTarget, sel);
        if (way === 'here') return true;
        if (way === 'wait') { i -= 1; await sleep(50); continue; }
        this.keys += 1;
        if (way === 'Tab') await this.page.keyboard.press('Tab');
        else {
          await this.page.keyboard.down('Shift');
          await this.page.keyboard.press('Tab');
          await this.page.keyboard.up('Shift');
        }
      }
    } catch (e) {
      this.lastError = e;
    }
    return false;
  }

  /**
   * Brings this tab's window to the front, if another tab of the browser is there:
   * Firefox moves the focus with Tab in a window behind others, but does not press
   * its buttons with Enter or Space.
   */
  async toFront() {
    if (!this.owner || this.owner.front === this) return;
    await this.page.bringToFront();
    this.owner.front = this;
  }

  /** Presses `key` (a puppeteer key name: Enter, ArrowDown...) `times` times, counted. */
  async key(key, times = 1) {
    await this.toFront();
    for (let i = 0; i < times; i++) {
      this.keys += 1;
      await this.page.keyboard.press(key);
    }
  }

  /** Types `text` with the keyboard into the focused element, one key a character. */
  async type(text) {
    this.keys += text.length;
    await this.page.keyboard.type(text);
  }

  /** Like `click`, but answers false instead of failing. */
  async tryClick(sel, timeout = 2000) {
    try {
      await this.click(sel, timeout);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Clicks with the mouse at the middle of the `i`-th element matching `sel`, if that
   * element is what a person would hit there (nothing covers it). No waiting.
   */
  async clickNth(sel, i) {
    if (this.keyboard) return this.press(sel, 2000);
    try {
      const at = await this.page.evaluate(([s, n]) => {
        const e = document.querySelectorAll(s)[n];
        if (!e) return null;
        e.scrollIntoView({ block: 'nearest', inline: 'nearest' });
        const r = e.getBoundingClientRect();
        const x = r.x + r.width / 2;
        const y = r.y + r.height / 2;
        return document.elementFromPoint(x, y) === e ? { x, y } : null;
      }, [sel, i]);
      if (!at) return false;
      await this.page.mouse.click(at.x, at.y);
      return true;
    } catch (e) {
      this.lastError = e;
      return false;
    }
  }

  /** Types `value` into the input `sel`, replacing what it held. */
  async fill(sel, value) {
    await this.page.locator(sel).fill(String(value))
      .catch((e) => { throw new Error(`fill ${sel}: ${e.message}`, { cause: e }); });
  }

  /** Chooses the option `value` of the select `sel`. */
  async select(sel, value) {
    await this.page.waitForSelector(sel, { visible: true });
    await this.page.select(sel, String(value));
  }

  // The two waits below are puppeteer's, which poll inside the page, but in slices
  // of at most WAIT_SLICE: one wait holds one protocol call open, which
  // `protocolTimeout` (60 s) cuts whatever the wait's own timeout, so a wait of
  // 90 s for a bot game on a busy machine failed after 60 s in Firefox. (Polling
  // from here instead, one evaluation a round trip, was tried: in Firefox the
  // page's turn countdown then stood still after a reload, in two runs of two.)

  /** Waits until an element matching `sel` is visible. */
  async waitFor(sel, timeout = 30000) {
    await this.#sliced(timeout, `wait for ${sel}`,
      (slice) => this.page.waitForSelector(sel, { visible: true, timeout: slice }));
  }

  /** Waits until `fn(arg)` is truthy in the page. */
  async waitForFunction(fn, arg, timeout = 30000) {
    await this.#sliced(timeout, `wait for ${fn} (${JSON.stringify(arg)})`,
      (slice) => this.page.waitForFunction(fn, { timeout: slice, polling: 100 }, arg));
  }

  /** Runs `wait(slice)` in slices until it succeeds or `timeout` ms have passed. */
  async #sliced(timeout, what, wait) {
    const end = Date.now() + timeout;
    for (;;) {
      const left = end - Date.now();
      try {
        await wait(Math.max(1, Math.min(WAIT_SLICE, left)));
        return;
      } catch (e) {
        if (Date.now() < end) {
          // A slice over, or the page navigating: wait on.
          await sleep(50);
          continue;
        }
        throw new Error(`${what}: ${e.message}; ${await this.describe()}`, { cause: e });
      }
    }
  }

  /** Where the page is and what it says, for the message of a failed wait. */
  async describe() {
    return this.page.evaluate(() => {
      const state = window.__catan?.conn?.state;
      const text = (document.body?.innerText ?? '').replace(/\s+/g, ' ').slice(0, 300);
      return `page ${location.pathname}${location.search}, seq ${state?.lastSeq ?? "-"}, `
        + `game over ${!!state?.gameOver}, text: ${text}`;
    }).catch((e) => `page unreadable: ${e?.message ?? e}`);
  }

  async screenshot(file, { fullPage = false } = {}) {
    await this.page.screenshot({ path: file, fullPage });
  }

  /**
   * A screenshot of the region of the first element matching `sel`, measured and
   * taken without holding the element (the client re-renders it often).
   */
  async screenshotOf(sel, file) {
    await this.waitFor(sel);
    const clip = await this.page.evaluate((s) => {
      const r = document.querySelector(s).getBoundingClientRect();
      return { x: r.x + visualViewport.pageLeft, y: r.y + visualViewport.pageTop, width: r.width, height: r.height };
    }, sel);
    await this.page.screenshot({ path: file, clip });
  }

  async close() {
    await this.page.close();
    if (this.context) await this.context.close();
  }
}
