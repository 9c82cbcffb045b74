// The page redraws only what a message changed, in place (web/dom.js, web/state.js):
// a phone-sized page watches three hard bots play (each decision searched for up to
// the bots' clock, some 5 to 20 broadcasts a second, as a game of people with bots) while a person presses and holds a button of a part the
// broadcasts redraw (the help sheet's, in the bar at the bottom) and lets go only
// once a broadcast has arrived and been drawn: every press is a click (the sheet
// opens and closes each time), none lost. Then, the game on to its first rolls, the
// dice of each roll start their animation once, and most redraws draw only some parts
// of the screen.

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A room of four bots of `kind`, started; its id. */
async function botsRoom(base, kind = 'hard', players = 3) {
  const post = (p, body, token) => fetch(`${base}${p}`, {
    method: 'POST', body: JSON.stringify(body ?? {}), headers: { 'content-type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
  }).then((r) => r.json());
  // (A long game: 20 points to win, so that it outlasts the presses.)
  const { room_id: id, host_token: host } = await post('/api/rooms', { players, vp_target: 20 });
  for (let i = 0; i < players; i++) await post(`/api/rooms/${id}/bots`, { kind }, host);
  await post(`/api/rooms/${id}/start`, {}, host);
  return id;
}

/** Counts, in the page: broadcasts taken in, rolls, redraws and the parts each drew, each die's animation starts. */
function hook(tab) {
  return tab.evaluate(() => {
    const rec = { messages: 0, rolls: 0, renders: 0, parts: {}, dieStarts: new Map() };
    window.__redraw = rec;
    const proto = Object.getPrototypeOf(window.__catan.conn);
    const receive = proto.receive;
    proto.receive = function (msg) {
      const r = receive.call(this, msg);
      if (msg.type === 'events') {
        rec.messages += 1;
        rec.rolls += msg.events.filter((e) => e.type === 'dice_rolled').length;
      }
      return r;
    };
    const page = window.__catanPage;
    let last = page.draws;
    const tick = () => {
      if (page.draws !== last) {
        last = page.draws;
        rec.renders += 1;
        for (const p of page.drawn) rec.parts[p] = (rec.parts[p] || 0) + 1;
      }
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    document.addEventListener('animationstart', (e) => {
      if (e.animationName !== 'roll' || !(e.target instanceof Element)) return;
      rec.dieStarts.set(e.target, (rec.dieStarts.get(e.target) || 0) + 1);
    });
  });
}

export async function clicksDuringBroadcasts(browser, base, out, admin = null) {
  mkdirSync(out, { recursive: true });
  const tab = await browser.newTab({ width: 390, height: 844, isolated: true });
  const total = { presses: 8, redrawnUnder: 0, messages: 0, rolls: 0, renders: 0, parts: {}, dice: [], games: 0 };
  const collect = async () => {
    const r = await tab.evaluate(() => {
      const x = window.__redraw;
      return x ? { messages: x.messages, rolls: x.rolls, renders: x.renders, parts: x.parts, dice: [...x.dieStarts.values()] } : null;
    }).catch(() => null);
    if (!r) return;
    total.messages += r.messages; total.rolls += r.rolls; total.renders += r.renders; total.dice.push(...r.dice);
    for (const [k, n] of Object.entries(r.parts)) total.parts[k] = (total.parts[k] || 0) + n;
  };
  // A game to watch (another when one ends before the presses are done); the rooms
  // closed at the end (their bots would play on).
  const rooms = [];
  const watch = async () => {
    await collect();
    rooms.push(await botsRoom(base));
    await tab.goto(`${base}/?room=${rooms[rooms.length - 1]}&lang=en`);
    await tab.waitFor('#open-help');
    await hook(tab);
    total.games += 1;
    return tab.page.$eval('#open-help', (e) => { const r = e.getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; });
  };
  let box = await watch();
  for (let i = 0; i < total.presses;) {
    const before = await tab.evaluate(() => ({ m: window.__redraw.messages, actions: window.__redraw.parts['actions-slot'] || 0, sheet: window.__catan.sheet, over: !!window.__catan.conn.state.gameOver }));
    if (before.over) { box = await watch(); continue; }
    await tab.evaluate(() => { document.getElementById('open-help').__mark = 1; });
    await tab.page.mouse.move(box.x, box.y);
    await tab.page.mouse.down();
    // Held until a broadcast came and was drawn (two frames after it).
    const came = await tab.waitForFunction((m) => window.__redraw.messages > m || window.__catan.conn.state.gameOver, before.m, 8000).then(() => true, () => false);
    if (!came) {
      // (A game that stopped sending: released, not counted, another game watched.)
      await tab.page.mouse.up();
      box = await watch();
      continue;
    }
    await tab.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    const during = await tab.evaluate(() => ({ actions: window.__redraw.parts['actions-slot'] || 0, over: !!window.__catan.conn.state.gameOver }));
    const diag = await tab.evaluate(([x, y]) => {
      const at = document.elementFromPoint(x, y);
      const b = document.getElementById('open-help');
      const r = b.getBoundingClientRect();
      return { at: at ? `${at.tagName}#${at.id}.${at.getAttribute('class')}` : null, kept: b.__mark === 1, rect: [r.left, r.top, r.width, r.height] };
    }, [box.x, box.y]);
    await tab.page.mouse.up();
    // (The game ended under the finger: the end screen took the tap. Not counted.)
    if (during.over || await tab.evaluate(() => !!window.__catan.conn.state.gameOver)) continue;
    if (during.actions > before.actions) total.redrawnUnder += 1;
    const open = await tab.evaluate(() => window.__catan.sheet);
    const want = before.sheet === 'help' ? null : 'help';
    if (open !== want) console.log('DIAG', i, JSON.stringify(box), JSON.stringify(diag));
    assert.equal(open, want, `press ${i + 1} (held over a broadcast) is a click: the help sheet ${want ? 'opens' : 'closes'}`);
    i += 1;
    await sleep(20);
  }
  // The game on to its first rolls (the presses may all have come in the setup).
  await tab.waitForFunction(() => window.__redraw.dieStarts.size >= 2 || window.__catan.conn.state.gameOver, null, 60000);
  await collect();
  await tab.screenshot(path.join(out, 'clicks-during-broadcasts.png'));
  if (admin?.url) {
    for (const id of rooms) {
      await fetch(`${admin.url}/admin/rooms/${id}/close`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', authorization: `Bearer ${admin.token}` } }).catch(() => {});
    }
  }
  assert.ok(total.redrawnUnder > 0, `the button's part was redrawn under a held press at least once (${total.redrawnUnder} of ${total.presses})`);
  // Each roll's dice start their animation once at most.
  assert.ok(total.dice.length > 0, 'some rolls animated');
  assert.deepEqual(total.dice.filter((n) => n > 1), [], `no die animated twice (${total.dice.length} dice animated for ${total.rolls} rolls)`);
  assert.ok(total.dice.length <= 2 * total.rolls, 'no more animations than dice rolled');
  // Redraws draw only what changed: the board far less often than there were redraws.
  assert.ok((total.parts['board-slot'] || 0) < total.renders, `the board redrawn ${total.parts['board-slot']} times in ${total.renders} redraws`);
  assert.deepEqual(tab.errors, [], 'no errors in the page');
  await tab.close();
  return total;
}
