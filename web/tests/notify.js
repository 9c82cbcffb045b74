// Notifications of games over days (protocol 27.6) on the account page, in a real
// browser against the real server:
//
// - a guest (made over the API, as a first game would) finds the panel: no channel
//   yet, the line on Web Push in mainland China, the language of a new channel the
//   page's;
// - Web Push (Chromium, whose permissions the test sets): with notifications
//   blocked, the page says so and does not subscribe; allowed, the page subscribes
//   with the server's VAPID key as `applicationServerKey` and `userVisibleOnly`.
//   In Chromium's private context (seen by a hook on
//   `PushManager.prototype.subscribe` that then calls the browser's own) the browser
//   refuses at once (no push there) and the page says so in words. In an ordinary
//   context of a Chromium of its own whose GCM client goes to a fake GCM on the
//   loopback (fake-gcm.js: offline, Google's push service is out of reach), the
//   browser's own subscribe, unhooked, resolves: the fake was asked to register the
//   page's worker with the server's key, the endpoint ends with the fake's token,
//   and the server lists the web_push channel (an endpoint on a browser vendor's
//   push service is taken without a DNS lookup). Firefox is tried in its isolated context (its push service
//   is not switchable: a real try, which of the two happened answered for the log).
//   Where the browser offers no Web Push, the panel says it cannot be notified;
// - the service worker's push handler, for real in Chromium (the private context's
//   registration, and the ordinary one's with its subscription): a push delivered
//   over the DevTools protocol (`ServiceWorker.deliverPushMessage`) with the JSON of
//   catan-notify shows a notification of that title, body, url and tag
//   (`registration.getNotifications()`); (its click handler is tested in Node,
//   sw.test.js: no browser here clicks a notification);
// - a webhook (WeCom, with a secret never shown back) and an email address (in
//   English, without offers) added from the forms, listed as the server keeps them,
//   each removed with one tap; a webhook to a loopback address refused in words
//   (err.invalid_channel); email refused in words too on a server without SMTP
//   (the test asks the server first which it is);
// - at 390x844 in Simplified Chinese and 1366x768 in English, with screenshots:
//   nothing scrolls sideways, every tap target at least 44 px.

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { launch } from './driver.js';
import { startFakeGcm } from './fake-gcm.js';
import { measure } from './scenario.js';
import { tr } from './lobby.js';

/** The page's answer to `method path` (its cookie sent): status and body (parsed). */
const call = (tab, method, p, body) => tab.evaluate(async ([m, u, b]) => {
  const r = await fetch(u, { method: m, headers: b ? { 'content-type': 'application/json' } : {}, body: b ? JSON.stringify(b) : undefined });
  const text = await r.text();
  let json = null;
  try { json = JSON.parse(text); } catch { json = null; }
  return { status: r.status, body: json ?? text };
}, [method, p, body]);

/** The server's list of the signed-in player's channels. */
const channels = async (tab) => {
  const r = await call(tab, 'GET', '/api/me/notifications');
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.channels;
};

/** Nothing overflows sideways; every tap target is at least 44 px. */
async function fits(tab, width, where) {
  const m = await measure(tab);
  assert.ok(m.scrollWidth <= width, `${where}: no horizontal scrolling (${m.scrollWidth} px)`);
  assert.deepEqual(m.small, [], `${where}: every tap target is at least 44 px`);
}

/** A guest `name` signed in on `tab` (its cookie), on the account page in `lang`. */
async function guestOnAccountPage(tab, base, name, lang) {
  await tab.goto(`${base}/?lang=${lang}`);
  await tab.waitFor('#play-bots');
  assert.equal((await call(tab, 'POST', '/api/guests', { name })).status, 201);
  await tab.evaluate(() => localStorage.setItem('catan.signed_in', '1'));
  await tab.goto(`${base}/?account`);
  await tab.waitFor('#notify-panel');
}

/**
 * What `#notify-said` says after the tap on `sel` (emptied first, so that the same
 * words said again count): its text and whether it is good news.
 */
async function saidAfter(tab, sel) {
  await tab.evaluate(() => { document.getElementById('notify-said').textContent = ''; });
  await tab.click(sel);
  await tab.waitForFunction(() => !!document.getElementById('notify-said')?.textContent, undefined, 40000);
  return { text: await tab.text('#notify-said'), ok: await tab.evaluate(() => document.getElementById('notify-said').className === 'ok') };
}

/** Every call of `PushManager.prototype.subscribe` seen (its key as base64url), then handed to the browser's own. */
const watchSubscribe = (tab) => tab.evaluate(() => {
  window.__subscribes = [];
  if (window.__watching) return;
  window.__watching = true;
  const real = PushManager.prototype.subscribe;
  const b64 = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  PushManager.prototype.subscribe = function subscribe(options) {
    const seen = { userVisibleOnly: options?.userVisibleOnly, key: typeof options?.applicationServerKey === 'string' ? options.applicationServerKey : b64(options.applicationServerKey) };
    window.__subscribes.push(seen);
    return real.call(this, options).then((x) => { seen.endpoint = x.endpoint; return x; }, (e) => { seen.error = `${e.name}: ${e.message}`; throw e; });
  };
});

/**
 * Web Push from the panel in Chromium, notifications allowed: the page subscribes
 * with the server's VAPID key; then either the server lists the web_push channel
 * with the subscription's endpoint (a real subscription), or the page says the push
 * service would not have this browser, and the server lists none. Answers which.
 */
async function subscribed(tab, base) {
  const vapid = await call(tab, 'GET', '/api/notifications/vapid');
  assert.equal(vapid.status, 200, 'the test server sends Web Push');
  await tab.waitFor('#notify-push');
  await watchSubscribe(tab);
  assert.equal(await tab.evaluate(() => Notification.permission), 'granted');
  const said = await saidAfter(tab, '#notify-push');
  const seen = await tab.evaluate(() => window.__subscribes);
  assert.equal(seen.length, 1, 'one subscription asked for');
  assert.equal(seen[0].key, vapid.body.public_key, "applicationServerKey is the server's VAPID key");
  assert.equal(seen[0].userVisibleOnly, true);
  const listed = (await channels(tab)).filter((c) => c.kind === 'web_push');
  if (seen[0].endpoint) {
    assert.deepEqual(said, { text: await tr(tab, 'notify.push_added'), ok: true });
    assert.equal(listed.length, 1, 'the server lists the web_push channel');
    assert.ok(seen[0].endpoint.startsWith(listed[0].target.replace(/…$/, '')), `its endpoint (${listed[0].target})`);
    await tab.waitFor(`#notify-channels li[data-channel="${listed[0].id}"][data-kind="web_push"]`);
    return { real: true, endpoint: listed[0].target };
  }
  // The push service would not have this browser (or never answered): said plainly.
  assert.deepEqual(said, { text: await tr(tab, 'notify.push_failed'), ok: false }, `the failure explained (${seen[0].error ?? 'no answer'})`);
  assert.deepEqual(listed, [], 'no web_push channel without a subscription');
  return { real: false, error: seen[0].error ?? "no answer from the browser's push service within the page's 20 s" };
}

/**
 * Web Push in an isolated context: refused in words while notifications are
 * blocked, without asking the browser; allowed, asked with the server's key
 * (Chromium has no push in its private contexts: it refuses at once; Firefox asks
 * its push service).
 */
async function webPushPrivate(tab, base) {
  await tab.waitFor('#notify-push');
  await watchSubscribe(tab);
  await tab.context.overridePermissions(base, []);
  assert.equal(await tab.evaluate(() => Notification.permission), 'denied');
  const blocked = await saidAfter(tab, '#notify-push');
  assert.deepEqual(blocked, { text: await tr(tab, 'notify.push_denied'), ok: false }, 'notifications blocked, said so');
  assert.deepEqual(await tab.evaluate(() => window.__subscribes), [], 'no subscription asked for while blocked');
  await tab.context.overridePermissions(base, ['notifications']);
  return subscribed(tab, base);
}

/**
 * Web Push in Chromium for real, offline: a Chromium of its own whose GCM client
 * (check-in, registration) goes to the fake GCM of fake-gcm.js (its switches are
 * read at start only: the suite's shared Chromium has none). In its ordinary (not
 * private) context, the tap subscribes with the browser's own
 * `PushManager.prototype.subscribe` (no hook): the subscription resolves; the fake
 * was asked to register the page's worker with the server's VAPID key as sender and
 * the subscription's endpoint ends with the token it handed out. The server then
 * lists the web_push channel (the endpoint is on Google's push service, which
 * Chromium builds it on: taken without a DNS lookup, offline too). Then a push delivered over DevTools to this
 * registration (the one with a subscription) shows its notification.
 */
async function webPushReal(base) {
  const gcm = await startFakeGcm();
  const browser = await launch('chromium', { args: gcm.args });
  try {
    const tab = await browser.newTab({ width: 390, height: 844 });
    await tab.page.browserContext().overridePermissions(base, ['notifications']);
    await guestOnAccountPage(tab, base, '普诗', 'zh-Hans');
    // A page opened while the worker of a new profile was activating may be left
    // without one (seen under load): opened again, the worker controls it.
    await tab.evaluate(() => navigator.serviceWorker.ready.then(() => {}));
    if (!(await tab.evaluate(() => !!navigator.serviceWorker.controller))) {
      await tab.reload();
      await tab.waitFor('#notify-panel');
    }
    const vapid = await call(tab, 'GET', '/api/notifications/vapid');
    assert.equal(vapid.status, 200, 'the test server sends Web Push');
    await tab.waitFor('#notify-push');
    assert.equal(await tab.evaluate(() => Notification.permission), 'granted');
    assert.ok(await tab.evaluate(() => /\{\s*\[native code\]\s*\}/.test(Function.prototype.toString.call(PushManager.prototype.subscribe))),
      "the browser's own subscribe, not a hook");
    const said = await saidAfter(tab, '#notify-push');

    // What the fake GCM was asked: one check-in, one push registration, for this
    // page's worker, with the server's key, by the device it made up.
    assert.equal(gcm.checkins.length, 1, 'Chromium checked in with the fake GCM');
    const pushes = gcm.pushTokens();
    assert.equal(pushes.length, 1, `one push registration granted by the fake GCM (${JSON.stringify(gcm.registrations.map((r) => r.form))})`);
    const [{ form, token }] = pushes;
    assert.equal(form.sender, vapid.body.public_key, "registered with the server's VAPID key as sender");
    assert.ok(form['X-subtype'].startsWith(`wp:${base}/#`), `for this origin's worker (${form['X-subtype']})`);
    assert.equal(form.device, String(gcm.device.androidId), 'by the device the fake checked in');

    // The subscription as the browser keeps it: the fake's token, the server's key.
    const sub = await tab.evaluate(async () => {
      const s = await (await navigator.serviceWorker.ready).pushManager.getSubscription();
      const key = s && btoa(String.fromCharCode(...new Uint8Array(s.options.applicationServerKey))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
      return s && { endpoint: s.endpoint, userVisibleOnly: s.options.userVisibleOnly, key };
    });
    assert.ok(sub, 'the subscription resolved and is kept');
    assert.ok(sub.endpoint.startsWith('https://') && sub.endpoint.endsWith(`/${token}`), `its endpoint ends with the fake's token (${sub.endpoint})`);
    assert.deepEqual([sub.userVisibleOnly, sub.key], [true, vapid.body.public_key], "userVisibleOnly, with the server's key");

    // Handed to the server, which stores it (an endpoint on Google's push service is
    // taken without looking its name up: offline here, it does not resolve).
    const endpoint = new URL(sub.endpoint);
    const listed = (await channels(tab)).filter((c) => c.kind === 'web_push');
    assert.deepEqual(said, { text: await tr(tab, 'notify.push_added'), ok: true });
    assert.equal(listed.length, 1, 'the server lists the web_push channel');
    assert.equal(listed[0].target, `${endpoint.origin}/…`, "listed by the endpoint's origin");
    await tab.waitFor(`#notify-channels li[data-channel="${listed[0].id}"][data-kind="web_push"]`);

    await pushShown(tab, base);
    for (const c of await channels(tab)) await call(tab, 'DELETE', `/api/me/notifications/${c.id}`);
    await call(tab, 'DELETE', '/api/sessions/current');
    assert.deepEqual(tab.errors, [], 'no errors in the page');
    return { real: true, endpoint: `${sub.endpoint} from the fake GCM; stored by the server` };
  } finally {
    await browser.close();
    await gcm.close();
  }
}

/**
 * The service worker's push handler in Chromium: a push of catan-notify's JSON
 * delivered over the DevTools protocol shows that notification.
 */
async function pushShown(tab, base) {
  const cdp = await tab.page.createCDPSession();
  // The registration of the worker that controls this page (other contexts of the
  // browser have their own at the same scope).
  const { targetInfo } = await cdp.send('Target.getTargetInfo');
  const versions = [];
  cdp.on('ServiceWorker.workerVersionUpdated', (e) => versions.push(...e.versions));
  await cdp.send('ServiceWorker.enable');
  const ours = () => versions.find((v) => v.scriptURL === `${base}/sw.js` && v.controlledClients?.includes(targetInfo.targetId));
  const end = Date.now() + 10000;
  while (!ours()) {
    assert.ok(Date.now() < end, `the service worker controlling the page (${JSON.stringify(versions)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const reg = ours();
  const push = { title: "It's your turn in Catan", body: 'Annie: the move is yours (11 h 59 min left).', url: `${base}/?room=5b1e9a2c` };
  await cdp.send('ServiceWorker.deliverPushMessage', { origin: base, registrationId: reg.registrationId, data: JSON.stringify(push) });
  await cdp.detach();
  // Not asked at once: asked while the handler was showing it, none was ever
  // listed (its `showNotification` resolved, no `notificationclose`), in most runs
  // in an ordinary profile and once in a private one; asked a second later, always.
  // (Chromium's `getNotifications()` drops from its store those the platform does
  // not list as shown, seemingly the one being shown too.) Showing takes a few ms.
  await new Promise((r) => setTimeout(r, 1000));
  await tab.waitForFunction(async () => (await (await navigator.serviceWorker.ready).getNotifications()).length > 0, undefined, 10000);
  const shown = await tab.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications())
    .map((n) => ({ title: n.title, body: n.body, data: n.data, tag: n.tag })));
  assert.deepEqual(shown, [{ title: push.title, body: push.body, data: { url: push.url }, tag: push.url }], 'the push shown as sent');
}

/**
 * A webhook and an email added from the forms and removed; refusals in words.
 * `lang` the page's (a new channel's default).
 */
async function formsAddAndRemove(tab, lang) {
  // A webhook to a loopback address: refused, in words.
  await tab.fill('#notify-webhook-url', 'http://127.0.0.1:9/hook');
  assert.deepEqual(await saidAfter(tab, '#notify-webhook-submit'), { text: await tr(tab, 'err.invalid_channel'), ok: false }, 'a loopback webhook refused in words');
  assert.equal(await tab.value('#notify-webhook-url'), 'http://127.0.0.1:9/hook', 'the form keeps what was typed');

  // A WeCom group bot (a public address: nothing is sent when it is added).
  await tab.fill('#notify-webhook-url', 'https://93.184.215.14/cgi-bin/webhook/send?key=693a91f6');
  await tab.select('#notify-webhook-format', 'we_com');
  await tab.fill('#notify-webhook-secret', 's3cret-never-shown');
  assert.deepEqual(await saidAfter(tab, '#notify-webhook-submit'), { text: await tr(tab, 'notify.added'), ok: true });
  const hook = (await channels(tab)).find((c) => c.kind === 'webhook');
  assert.ok(hook, 'the server lists the webhook');
  assert.deepEqual([hook.format, hook.lang, hook.notices], ['we_com', lang, ['your_turn', 'offer_to_you', 'time_low']], "WeCom, in the page's language, every notice");
  const item = `#notify-channels li[data-channel="${hook.id}"]`;
  await tab.waitFor(item);
  assert.ok((await tab.text(item)).includes(await tr(tab, 'notify.format.we_com')), 'listed as WeCom');
  assert.ok((await tab.text(item)).includes(hook.target), 'with its scheme and host');
  assert.equal(await tab.value('#notify-webhook-url'), '', 'the form emptied');
  assert.ok(!(await tab.text('#notify-panel')).includes('s3cret'), 'the secret is not shown back');

  // An email address, in English, without offers: if the server has SMTP.
  const probe = await call(tab, 'POST', '/api/me/notifications', { kind: 'email', to: 'probe@example.org' });
  const smtp = probe.status === 201;
  if (smtp) assert.equal((await call(tab, 'DELETE', `/api/me/notifications/${probe.body.id}`)).status, 204);
  else assert.equal(probe.body?.error?.code, 'invalid_channel', 'email refused on a server without SMTP');
  await tab.select('#notify-lang', 'en');
  await tab.click('#notify-notice-offer_to_you');
  await tab.fill('#notify-email-to', 'annie@example.org');
  const said = await saidAfter(tab, '#notify-email-submit');
  const mail = (await channels(tab)).find((c) => c.kind === 'email');
  if (smtp) {
    assert.deepEqual(said, { text: await tr(tab, 'notify.added'), ok: true });
    assert.deepEqual([mail?.target, mail?.lang, mail?.notices], ['annie@example.org', 'en', ['your_turn', 'time_low']], 'in English, no offers');
    await tab.waitFor(`#notify-channels li[data-channel="${mail.id}"][data-kind="email"]`);
  } else {
    assert.deepEqual(said, { text: await tr(tab, 'err.invalid_channel'), ok: false }, 'email refused in words');
    assert.equal(mail, undefined);
  }
  // No notice ticked: said, nothing sent.
  for (const n of ['your_turn', 'time_low']) await tab.click(`#notify-notice-${n}`);
  const count = (await channels(tab)).length;
  await tab.fill('#notify-email-to', 'bob@example.org');
  assert.deepEqual(await saidAfter(tab, '#notify-email-submit'), { text: await tr(tab, 'notify.pick_notices'), ok: false });
  assert.equal((await channels(tab)).length, count, 'nothing added');
  for (const n of ['your_turn', 'offer_to_you', 'time_low']) await tab.click(`#notify-notice-${n}`);
  return { smtp, hook, mail };
}

/** Removes every channel listed, one tap each; then none is listed, here or on the server. */
async function removeAll(tab) {
  for (const c of await channels(tab)) {
    assert.deepEqual(await saidAfter(tab, `.delete-channel[data-channel="${c.id}"]`), { text: await tr(tab, 'notify.removed'), ok: true });
    await tab.waitForFunction((id) => !document.querySelector(`#notify-channels li[data-channel="${id}"]`), c.id);
  }
  assert.deepEqual(await channels(tab), []);
  await tab.waitFor('#no-channels');
}

/** The whole scenario; answers what happened with Web Push, for the log. */
export async function notifications(browser, base, out) {
  mkdirSync(out, { recursive: true });
  const saw = {};

  // A phone in Simplified Chinese.
  const phone = await browser.newTab({ width: 390, height: 844, isolated: true });
  await guestOnAccountPage(phone, base, '诺蒂', 'zh-Hans');
  await phone.waitFor('#no-channels');
  assert.equal(await phone.text('#no-channels'), await tr(phone, 'notify.none'));
  assert.equal(await phone.text('#notify-china'), await tr(phone, 'notify.push_china'), 'Web Push in mainland China, said');
  assert.equal(await phone.value('#notify-lang'), 'zh-Hans', "a new channel in the page's language");
  await phone.waitForFunction(() => document.getElementById('notify-push-part').childElementCount > 0);
  const pushOffered = await phone.count('#notify-push');
  if (browser.name === 'chromium') {
    assert.equal(pushOffered, 1, 'Chromium offers Web Push');
    saw.private = await webPushPrivate(phone, base);
    await pushShown(phone, base);
    saw.shown = true;
    saw.push = await webPushReal(base);
  } else if (pushOffered) {
    // (Firefox's isolated context is a container, not a private window: a real try.)
    saw.push = await webPushPrivate(phone, base);
  } else {
    assert.equal(await phone.text('#notify-push-why'), await tr(phone, 'notify.push_no_browser'), 'why this browser cannot be notified');
    saw.push = { skipped: 'this browser offers no Web Push here (said so on the page)' };
  }
  const forms = await formsAddAndRemove(phone, 'zh-Hans');
  saw.smtp = forms.smtp;
  await phone.evaluate(() => document.getElementById('notify-panel').scrollIntoView({ block: 'start' }));
  await phone.screenshot(path.join(out, 'notify-390-zh-Hans.png'));
  await phone.screenshot(path.join(out, 'notify-390-zh-Hans-full.png'), { fullPage: true });
  await fits(phone, 390, 'the notifications at 390x844');
  await removeAll(phone);

  // A laptop in English: a webhook listed.
  const desk = await browser.newTab({ width: 1366, height: 768, isolated: true });
  await guestOnAccountPage(desk, base, 'Nora', 'en');
  await desk.fill('#notify-webhook-url', 'https://93.184.215.14/open-apis/bot/v2/hook/abc');
  await desk.select('#notify-webhook-format', 'feishu');
  await desk.click('#notify-webhook-submit');
  await desk.waitFor('#notify-channels li[data-kind="webhook"]');
  const [hook] = await channels(desk);
  assert.deepEqual([hook.format, hook.lang], ['feishu', 'en']);
  await desk.evaluate(() => document.getElementById('notify-panel').scrollIntoView({ block: 'start' }));
  await desk.screenshot(path.join(out, 'notify-1366-en.png'));
  await fits(desk, 1366, 'the notifications at 1366x768');
  await removeAll(desk);

  // (But the browser's own words on Web Push in a private window, and the refusals
  // above, which the page said in words.)
  const expected = /Push API in incognito mode|status of 400 \(Bad Request\)/;
  assert.deepEqual([...phone.errors, ...desk.errors].filter((e) => !expected.test(e)), [], 'no errors in the pages');
  await phone.close();
  await desk.close();
  return saw;
}
