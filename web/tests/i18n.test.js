// The page's languages (web/i18n.js), in Node without a browser: every language has
// every key another has; every key the code uses exists; every error code of the
// protocol (protocol.md 4.1 and 18, the tables the server's codes are documented in)
// and every value of the wire's enumerations (protocol.d.ts) has a translation; the
// rules terms are the rulebooks'; the language follows navigator.languages.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DICTIONARIES, LANGUAGES, pickLanguage } from '../i18n.js';

const WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const read = (f) => readFileSync(path.join(WEB, f), 'utf8');

test('every language has the keys every other has', () => {
  assert.deepEqual(LANGUAGES, ['en', 'zh-Hans', 'zh-Hant']);
  const all = new Set(LANGUAGES.flatMap((l) => Object.keys(DICTIONARIES[l])));
  for (const l of LANGUAGES) {
    const missing = [...all].filter((k) => !(k in DICTIONARIES[l]));
    assert.deepEqual(missing, [], `${l} lacks keys`);
    const params = (s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const k of all) assert.deepEqual(params(DICTIONARIES[l][k]), params(DICTIONARIES.en[k]), `${l} ${k}: the same parameters`);
  }
});

test('every key the page uses exists', () => {
  const files = readdirSync(WEB).filter((f) => f.endsWith('.js') && !f.startsWith('strings-'));
  const used = new Set(files.flatMap((f) => [...read(f).matchAll(/\bt(?:r)?\('([a-z_.]+)'/g)].map((m) => m[1])));
  assert.ok(used.size > 150, `${used.size} keys used`);
  assert.deepEqual([...used].filter((k) => !(k in DICTIONARIES.en)), []);
});

test('every error code of the protocol and every enumerated value has a translation', () => {
  // protocol.md, or the section files it indexes (docs/protocol/).
  const dir = path.join(WEB, '..', 'docs', 'protocol');
  let doc = readFileSync(path.join(WEB, '..', 'protocol.md'), 'utf8');
  try { for (const f of readdirSync(dir).sort()) if (f.endsWith('.md')) doc += `\n${readFileSync(path.join(dir, f), 'utf8')}`; } catch { /* not split */ }
  const sections = doc.split(/\n(?=#{2,3} )/).filter((s) => /^#{2,3} (4\.1 |18\.[123] )/.test(s));
  assert.equal(sections.length, 4, 'sections 4.1, 18.1, 18.2, 18.3');
  const codes = new Set(sections.flatMap((s) => [...s.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1])));
  assert.ok(codes.size >= 50, `${codes.size} codes`);
  const dts = read('protocol.d.ts');
  const union = (name) => {
    const body = dts.match(new RegExp(`export type ${name} =([^;]*);`))[1];
    return [...body.matchAll(/"([a-z_]+)"/g)].map((m) => m[1]);
  };
  const phases = [...dts.matchAll(/name: "([a-z_]+)"/g)].map((m) => m[1]);
  const wanted = [
    ...[...codes].map((c) => `err.${c}`),
    ...union('DevCard').map((c) => `dev.${c}`),
    ...union('RoomStatus').map((c) => `status.${c}`),
    ...union('Terrain').map((c) => `terrain.${c}`),
    ...union('Resource').map((c) => `res.${c}`),
    ...phases.map((c) => `phase.${c}`),
    ...['completed', 'withdrawn', 'rejected', 'expired', 'turn_ended', 'game_over'].map((c) => `close.${c}`),
  ];
  for (const l of LANGUAGES) assert.deepEqual(wanted.filter((k) => !(k in DICTIONARIES[l])), [], `${l} lacks translations`);
});

test('the rules terms are the rulebooks\'', () => {
  const terms = (l) => ['res.lumber', 'res.brick', 'res.wool', 'res.grain', 'res.ore', 'piece.settlement', 'piece.city', 'piece.road',
    'longest_road', 'largest_army'].map((k) => DICTIONARIES[l][k]);
  assert.deepEqual(terms('zh-Hans'), ['木材', '砖块', '羊毛', '粮食', '矿石', '村庄', '城市', '道路', '最长道路', '最大骑士军']);
  assert.deepEqual(terms('zh-Hant'), ['木材', '磚塊', '羊毛', '小麥', '礦石', '村莊', '城市', '道路', '最長道路', '最大騎士軍']);
  assert.match(DICTIONARIES['zh-Hans'].buy_dev, /发展牌/);
  assert.match(DICTIONARIES['zh-Hant'].buy_dev, /發展卡/);
  assert.match(DICTIONARIES['zh-Hans']['phase.move_robber'], /强盗/);
  assert.match(DICTIONARIES['zh-Hant']['phase.move_robber'], /強盜/);
});

test('the language follows navigator.languages', () => {
  assert.equal(pickLanguage(['zh-CN', 'en']), 'zh-Hans');
  assert.equal(pickLanguage(['zh-TW']), 'zh-Hant');
  assert.equal(pickLanguage(['zh-Hant-HK']), 'zh-Hant');
  assert.equal(pickLanguage(['zh-HK']), 'zh-Hant');
  assert.equal(pickLanguage(['zh']), 'zh-Hans');
  assert.equal(pickLanguage(['fr-FR', 'en-GB']), 'en');
  assert.equal(pickLanguage(['de']), 'en');
});

test('繁體中文 speaks as Taiwan does, and both scripts call the bots 機器人 / 机器人', () => {
  // Mainland words and their Taiwan counterparts (載入, 重新整理, 連線, 設定, ...).
  const mainland = ['加載', '刷新', '連接', '設置', '創建', '在線', '消息', '字符', '設備', '打開', '標籤頁', '協議', '添加', '默認', '信息',
    '電腦', '視頻', '軟件', '程序', '用戶', '網絡', '屏幕', '鏈接', '文件', '回放', '點擊', '支持'];
  const found = Object.entries(DICTIONARIES['zh-Hant']).flatMap(([k, s]) => mainland.filter((w) => s.includes(w)).map((w) => `${k}: ${w}`));
  assert.deepEqual(found, []);
  for (const [l, word] of [['zh-Hans', '电脑'], ['zh-Hant', '電腦']]) {
    assert.deepEqual(Object.entries(DICTIONARIES[l]).filter(([, s]) => s.includes(word)).map(([k]) => k), [], `${l}: no ${word}玩家`);
  }
});
