// The board as an SVG: tiles, number tokens, harbors, robber, pieces and the
// highlighted legal spots. Geometry comes from GET /api/board (protocol.md 14).

import { t as tr } from './i18n.js';

/** @typedef {import('./protocol').GameView} GameView */
/** @typedef {import('./protocol').Seat} Seat */

const SVG = 'http://www.w3.org/2000/svg';
const R = 50; // hex circumradius in SVG units
const SX = (R * Math.sqrt(3)) / 2;
const SY = R / 2;
/** The size of a spot's hit area, in board units: 44 px on a board 360 px wide (a phone). */
const HIT = Math.ceil((44 * 600) / 360);

export const SEAT_COLORS = ['#d63031', '#1e6fd9', '#f5f5f5', '#f08c00'];
export const SEAT_NAMES = ['red', 'blue', 'white', 'orange'];
export const TERRAIN_COLORS = {
  forest: '#2f7d32',
  hills: '#c8643c',
  pasture: '#9bd161',
  fields: '#f0c83c',
  mountains: '#8e8e9e',
  desert: '#e3d2a0',
};
export const RESOURCE_COLORS = {
  lumber: '#2f7d32',
  brick: '#c8643c',
  wool: '#9bd161',
  grain: '#f0c83c',
  ore: '#8e8e9e',
};
/**
 * Each terrain's pattern, drawn over its colour so that it reads without colour
 * (greyscale, colour blindness): trees, bricks, tufts, ears, peaks, dunes. Shapes in
 * a 20-unit tile of the pattern, drawn dark and translucent.
 */
const TERRAIN_PATTERNS = {
  forest: '<path d="M10 3 L15 12 L5 12 Z M10 9 L16 17 L4 17 Z"/>',
  hills: '<path d="M0 5 H20 M0 12 H20 M0 19 H20 M6 5 V12 M16 5 V12 M1 12 V19 M11 12 V19" fill="none" stroke-width="1.6"/>',
  pasture: '<path d="M4 15 q1 -5 2 0 q1 -5 2 0 M13 8 q1 -5 2 0 q1 -5 2 0" fill="none" stroke-width="1.4"/>',
  fields: '<path d="M10 18 V4 M10 7 l-3 -2 M10 7 l3 -2 M10 11 l-3 -2 M10 11 l3 -2 M10 15 l-3 -2 M10 15 l3 -2" fill="none" stroke-width="1.4"/>',
  mountains: '<path d="M1 17 L7 6 L13 17 Z M9 17 L14 9 L19 17 Z"/>',
  desert: '<circle cx="5" cy="6" r="1.2"/><circle cx="14" cy="12" r="1.2"/><circle cx="7" cy="16" r="1.2"/>',
};

/** The `<defs>` of the terrain patterns (fill `url(#terrain-<name>)`). */
function terrainDefs(svg) {
  const defs = el('defs', {}, svg);
  for (const [name, shape] of Object.entries(TERRAIN_PATTERNS)) {
    const p = el('pattern', { id: `terrain-${name}`, width: 20, height: 20, patternUnits: 'userSpaceOnUse' }, defs);
    const g = el('g', { class: 'terrain-mark' }, p);
    g.innerHTML = shape;
  }
}

/**
 * The tiles a roll of `sum` produces from (R-6.1): the tiles of that number,
 * not under the robber, with a building at a corner. For the glow after a roll.
 * @param {GameView} view @param {number} sum
 * @returns {Set<number>}
 */
export function producingTiles(view, sum) {
  const built = new Set(view.buildings.map((b) => b.vertex));
  const tiles = new Set();
  if (!board || sum === 7) return tiles;
  for (const t of board.tiles) {
    if (view.map.numbers[t.id] === sum && view.robber !== t.id && t.vertices.some((v) => built.has(v))) tiles.add(t.id);
  }
  return tiles;
}

const PIPS = { 2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 8: 5, 9: 4, 10: 3, 11: 2, 12: 1 };

/** @type {import('./protocol').BoardGeometry | null} */
let board = null;

/** Loads the fixed topology once (`GET /api/board`). */
export async function loadBoard() {
  if (!board) {
    const res = await fetch('/api/board');
    if (!res.ok) throw new Error(`GET /api/board: ${res.status}`);
    board = await res.json();
  }
  return board;
}

export function topology() {
  return board;
}

const px = (x) => x * SX;
const py = (y) => y * SY;

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== undefined && v !== null) e.setAttribute(k, String(v));
  }
  if (parent) parent.appendChild(e);
  return e;
}

function hexPoints(tile) {
  return tile.vertices
    .map((v) => `${px(board.vertices[v].x)},${py(board.vertices[v].y)}`)
    .join(' ');
}

function housePath(cx, cy, s) {
  return `M${cx - s},${cy + s} L${cx - s},${cy - s * 0.2} L${cx},${cy - s} L${cx + s},${cy - s * 0.2} L${cx + s},${cy + s} Z`;
}

function cityPath(cx, cy, s) {
  return `M${cx - 1.5 * s},${cy + s} L${cx - 1.5 * s},${cy - s * 0.3} L${cx - 0.75 * s},${cy - s * 1.1} L${cx},${cy - s * 0.3} L${cx + 1.5 * s},${cy - s * 0.3} L${cx + 1.5 * s},${cy + s} Z`;
}

/**
 * Draws `view` into `svg`.
 * `hl` = { vertices: Map(id -> kind), edges: Set, tiles: Set } of clickable spots;
 * `onPick(kind, id)` is called only for highlighted spots.
 * @param {SVGSVGElement} svg
 * @param {GameView} view
 * @param {{ vertices: Map<number, string>, edges: Set<number>, tiles: Set<number> }} hl
 * @param {(kind: string, id: number) => void} onPick
 * @param {object} [marks]
 * @param {{ kind: string, id: number } | null} [marks.last] the last piece placed, marked
 * @param {Set<number>} [marks.glow] tiles that just produced, glowing
 * @param {(kind: string, id: number) => string} [marks.label] a spot in words, for
 *   screen readers (spots are focusable and taken with Enter or Space)
 */
export function drawBoard(svg, view, hl, onPick, { last = null, glow = new Set(), label = () => '' } = {}) {
  svg.replaceChildren();
  svg.setAttribute('viewBox', '-300 -275 600 550');
  const spots = hl.tiles.size + hl.edges.size + hl.vertices.size;
  svg.setAttribute('role', spots ? 'group' : 'img');
  svg.setAttribute('aria-label', tr('board'));
  terrainDefs(svg);
  el('rect', { x: -300, y: -275, width: 600, height: 550, class: 'sea', rx: 24 }, svg);
  /** A spot taken by click, Enter or Space. */
  const pickable = (node, kind, id, labelKind = kind) => {
    node.setAttribute('role', 'button');
    node.setAttribute('aria-label', label(labelKind, id));
    node.addEventListener('click', () => onPick(kind, id));
    node.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); onPick(kind, id); }
    });
  };

  const tilesG = el('g', { class: 'tiles' }, svg);
  board.tiles.forEach((t) => {
    const terrain = view.map.terrain[t.id];
    const poly = el('polygon', {
      points: hexPoints(t),
      fill: TERRAIN_COLORS[terrain] || '#ccc',
      class: 'tile',
      'data-tile-base': t.id,
    }, tilesG);
    if (TERRAIN_PATTERNS[terrain]) {
      el('polygon', { points: hexPoints(t), fill: `url(#terrain-${terrain})`, class: 'tile-pattern', 'data-terrain': terrain }, tilesG);
    }
    const title = el('title', {}, poly);
    title.textContent = `${tr(`terrain.${terrain}`)}${view.map.numbers[t.id] ? ` ${view.map.numbers[t.id]}` : ''}`;
    const n = view.map.numbers[t.id];
    const cx = px(t.x);
    const cy = py(t.y);
    if (n) {
      const g = el('g', { class: 'token' }, tilesG);
      el('circle', { cx, cy, r: 15, class: 'token-bg' }, g);
      const hot = n === 6 || n === 8;
      const txt = el('text', {
        x: cx, y: cy + 2, class: hot ? 'token-num hot' : 'token-num',
        'text-anchor': 'middle', 'dominant-baseline': 'middle',
      }, g);
      txt.textContent = String(n);
      const pips = PIPS[n] || 0;
      for (let i = 0; i < pips; i++) {
        el('circle', {
          cx: cx + (i - (pips - 1) / 2) * 4, cy: cy + 10, r: 1.4,
          class: hot ? 'pip hot' : 'pip',
        }, g);
      }
    } else {
      const txt = el('text', { x: cx, y: cy + 4, class: 'desert-label', 'text-anchor': 'middle' }, tilesG);
      txt.textContent = tr('terrain.desert');
    }
  });

  // The tiles that just produced, over the tiles and under the pieces.
  const glowG = el('g', { class: 'glows' }, svg);
  for (const id of glow) el('polygon', { points: hexPoints(board.tiles[id]), class: 'glow', 'data-glow': id }, glowG);

  // Harbors: a marker outside the coastal path, joined to both intersections.
  const harborG = el('g', { class: 'harbors' }, svg);
  view.map.harbors.forEach((h) => {
    const e = board.edges[h.edge];
    const a = board.vertices[e.a];
    const b = board.vertices[e.b];
    const tileId = a.tiles.find((t) => b.tiles.includes(t));
    const t = board.tiles[tileId];
    const mx = (px(a.x) + px(b.x)) / 2;
    const my = (py(a.y) + py(b.y)) / 2;
    const dx = mx - px(t.x);
    const dy = my - py(t.y);
    const len = Math.hypot(dx, dy) || 1;
    const hx = mx + (dx / len) * 26;
    const hy = my + (dy / len) * 26;
    el('line', { x1: hx, y1: hy, x2: px(a.x), y2: py(a.y), class: 'pier' }, harborG);
    el('line', { x1: hx, y1: hy, x2: px(b.x), y2: py(b.y), class: 'pier' }, harborG);
    const g = el('g', { class: 'harbor', 'data-harbor': h.edge }, harborG);
    el('circle', {
      cx: hx, cy: hy, r: 14,
      fill: h.resource ? RESOURCE_COLORS[h.resource] : '#ffffff',
      class: 'harbor-bg',
    }, g);
    const txt = el('text', {
      x: hx, y: h.resource ? hy - 3 : hy + 1, 'text-anchor': 'middle', 'dominant-baseline': 'middle', class: 'harbor-text',
    }, g);
    txt.textContent = h.resource ? '2:1' : '3:1';
    if (h.resource) {
      const res = el('text', {
        x: hx, y: hy + 7, 'text-anchor': 'middle', 'dominant-baseline': 'middle', class: 'harbor-res',
      }, g);
      res.textContent = tr(`res.${h.resource}`);
    }
    const title = el('title', {}, g);
    title.textContent = h.resource ? tr('harbor_2', { res: tr(`res.${h.resource}`) }) : tr('harbor_3');
  });

  // Robber.
  {
    const t = board.tiles[view.robber];
    const cx = px(t.x) - 24;
    const cy = py(t.y);
    const g = el('g', { class: 'robber', 'data-robber': view.robber }, svg);
    el('ellipse', { cx, cy: cy + 8, rx: 8, ry: 10 }, g);
    el('circle', { cx, cy: cy - 6, r: 6 }, g);
  }

  // Roads.
  const roadsG = el('g', { class: 'roads' }, svg);
  view.roads.forEach((r) => {
    const e = board.edges[r.edge];
    const a = board.vertices[e.a];
    const b = board.vertices[e.b];
    const x1 = px(a.x) * 0.85 + px(b.x) * 0.15;
    const y1 = py(a.y) * 0.85 + py(b.y) * 0.15;
    const x2 = px(b.x) * 0.85 + px(a.x) * 0.15;
    const y2 = py(b.y) * 0.85 + py(a.y) * 0.15;
    el('line', { x1, y1, x2, y2, class: 'road-outline' }, roadsG);
    el('line', { x1, y1, x2, y2, class: 'road', stroke: SEAT_COLORS[r.seat], 'data-road': r.edge }, roadsG);
  });

  // Buildings.
  const bG = el('g', { class: 'buildings' }, svg);
  view.buildings.forEach((b) => {
    const v = board.vertices[b.vertex];
    const d = b.city ? cityPath(px(v.x), py(v.y), 8) : housePath(px(v.x), py(v.y), 8);
    el('path', {
      d, fill: SEAT_COLORS[b.seat], class: b.city ? 'city' : 'settlement',
      'data-building': b.vertex,
    }, bG);
  });

  // The last piece placed.
  if (last && last.kind === 'vertex' && board.vertices[last.id]) {
    const v = board.vertices[last.id];
    el('circle', { cx: px(v.x), cy: py(v.y), r: 15, class: 'last-piece', 'data-last': `vertex-${last.id}` }, svg);
  } else if (last && last.kind === 'edge' && board.edges[last.id]) {
    const e = board.edges[last.id];
    const a = board.vertices[e.a];
    const b = board.vertices[e.b];
    el('circle', { cx: (px(a.x) + px(b.x)) / 2, cy: (py(a.y) + py(b.y)) / 2, r: 13, class: 'last-piece', 'data-last': `edge-${last.id}` }, svg);
  }

  // Highlighted legal spots (the only clickable things).
  const hlG = el('g', { class: 'highlights' }, svg);
  if (hl.tiles.size) {
    for (const id of hl.tiles) {
      const t = board.tiles[id];
      const poly = el('polygon', {
        points: hexPoints(t), class: 'hl hl-tile', 'data-tile': id, tabindex: 0,
      }, hlG);
      pickable(poly, 'tile', id);
    }
  }
  // Each spot: a visible mark and, over it, a transparent hit area of HIT units
  // (44 px on a phone, where the 600-unit board is some 360 to 390 px wide).
  for (const id of hl.edges) {
    const e = board.edges[id];
    const a = board.vertices[e.a];
    const b = board.vertices[e.b];
    const ends = { x1: px(a.x), y1: py(a.y), x2: px(b.x), y2: py(b.y) };
    el('line', { ...ends, class: 'hl-mark hl-edge' }, hlG);
    const line = el('line', {
      x1: ends.x1 * 0.8 + ends.x2 * 0.2, y1: ends.y1 * 0.8 + ends.y2 * 0.2, x2: ends.x2 * 0.8 + ends.x1 * 0.2, y2: ends.y2 * 0.8 + ends.y1 * 0.2,
      'stroke-width': HIT, class: 'hl hl-hit', 'data-edge': id, tabindex: 0,
    }, hlG);
    pickable(line, 'edge', id);
  }
  for (const [id, kind] of hl.vertices) {
    const v = board.vertices[id];
    el('circle', { cx: px(v.x), cy: py(v.y), r: 13, class: `hl-mark hl-vertex hl-${kind}` }, hlG);
    const c = el('circle', {
      cx: px(v.x), cy: py(v.y), r: HIT / 2, class: 'hl hl-hit', 'data-vertex': id, 'data-kind': kind, tabindex: 0,
    }, hlG);
    pickable(c, kind, id);
  }
}
