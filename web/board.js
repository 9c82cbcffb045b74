// The board as an SVG: tiles, number tokens, harbors, robber, pieces and the
// highlighted legal spots. Geometry comes from GET /api/board (protocol.md 14).

import { t as tr } from './i18n.js';
import { on } from './dom.js';
import { boardIcon, RESOURCE_TINT } from './icons.js';

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
export const RESOURCE_COLORS = RESOURCE_TINT;
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

export const PIPS = { 2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 8: 5, 9: 4, 10: 3, 11: 2, 12: 1 };

/**
 * How much an intersection produces on average: the pips (dots) of the numbers of
 * the tiles around it, the robber's tile left out; the setup's hint (a good opening
 * spot has many pips and several resources).
 * @param {GameView} view @param {number} vertex
 */
export function vertexPips(view, vertex) {
  return board.vertices[vertex].tiles.reduce((n, t) => n + (t === view.robber ? 0 : PIPS[view.map.numbers[t]] || 0), 0);
}

/** The middle of tile `id` in board units. */
export function tileCenter(id) {
  const t = board.tiles[id];
  return { x: px(t.x), y: py(t.y) };
}

/** The part of the board shown: all of it at zoom 1 (the sea's margin trimmed). */
export const BOARD_BOX = { x: -262, y: -250, w: 524, h: 500 };

/**
 * The viewBox of the board zoomed `scale` times around (x, y), in board units.
 * @param {{ scale: number, x: number, y: number }} zoom
 */
export function viewBoxOf({ scale, x, y }) {
  const w = BOARD_BOX.w / scale;
  const hh = BOARD_BOX.h / scale;
  return `${x - w / 2} ${y - hh / 2} ${w} ${hh}`;
}

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

/** A city: a tall tower with a pointed roof beside a wide hall, twice a settlement's bulk. */
function cityPath(cx, cy, s) {
  return `M${cx - 1.4 * s},${cy + s} L${cx - 1.4 * s},${cy - s * 0.9} L${cx - 0.7 * s},${cy - s * 1.7} L${cx},${cy - s * 0.9} L${cx},${cy - s * 0.1} L${cx + 1.4 * s},${cy - s * 0.1} L${cx + 1.4 * s},${cy + s} Z`;
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
 * @param {boolean} [marks.hints] each candidate settlement spot shows its pips (the setup)
 * @param {{ scale: number, x: number, y: number }} [marks.zoom] the part of the board shown
 */
export function drawBoard(svg, view, hl, onPick, { last = null, glow = new Set(), label = () => '', hints = false, zoom = { scale: 1, x: 0, y: 0 } } = {}) {
  svg.replaceChildren();
  svg.setAttribute('viewBox', viewBoxOf(zoom));
  const spots = hl.tiles.size + hl.edges.size + hl.vertices.size;
  svg.setAttribute('role', spots ? 'group' : 'img');
  svg.setAttribute('aria-label', tr('board'));
  terrainDefs(svg);
  el('rect', { x: -400, y: -400, width: 800, height: 800, class: 'sea' }, svg);
  /** A spot taken by click, Enter or Space. */
  const pickable = (node, kind, id, labelKind = kind) => {
    node.setAttribute('role', 'button');
    node.setAttribute('aria-label', label(labelKind, id));
    on(node, 'click', () => onPick(kind, id));
    on(node, 'keydown', (e) => {
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
      el('circle', { cx, cy, r: 19, class: 'token-bg' }, g);
      const hot = n === 6 || n === 8;
      const txt = el('text', {
        x: cx, y: cy - 1, class: hot ? 'token-num hot' : 'token-num',
        'text-anchor': 'middle', 'dominant-baseline': 'middle',
      }, g);
      txt.textContent = String(n);
      const pips = PIPS[n] || 0;
      for (let i = 0; i < pips; i++) {
        el('circle', {
          cx: cx + (i - (pips - 1) / 2) * 4.6, cy: cy + 12, r: 1.8,
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
    // A harbor reads at phone size: its resource as an icon (a shape of its own), its ratio in bold.
    el('circle', { cx: hx, cy: hy, r: 19, fill: '#fffaf0', class: 'harbor-bg' }, g);
    if (h.resource) {
      el('circle', { cx: hx, cy: hy - 6, r: 9, fill: RESOURCE_COLORS[h.resource], class: 'harbor-res-bg' }, g);
      g.append(boardIcon(h.resource, hx, hy - 6, 13, 'harbor-icon'));
    }
    const txt = el('text', {
      x: hx, y: h.resource ? hy + 10 : hy + 1, 'text-anchor': 'middle', 'dominant-baseline': 'middle', class: h.resource ? 'harbor-text small' : 'harbor-text',
    }, g);
    txt.textContent = h.resource ? '2:1' : '3:1';
    const title = el('title', {}, g);
    title.textContent = h.resource ? tr('harbor_2', { res: tr(`res.${h.resource}`) }) : tr('harbor_3');
  });

  // Robber.
  // (Placed by a CSS transform, so that moving it is a transition: the same element,
  // kept by the redraw, glides to its new tile.)
  {
    const t = board.tiles[view.robber];
    const cx = px(t.x) - 27;
    const cy = py(t.y);
    const g = el('g', { class: 'robber', 'data-robber': view.robber, 'data-key': 'robber', style: `transform:translate(${cx}px,${cy}px)` }, svg);
    el('ellipse', { cx: 0, cy: 8, rx: 9, ry: 11 }, g);
    el('circle', { cx: 0, cy: -7, r: 7 }, g);
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
    const d = b.city ? cityPath(px(v.x), py(v.y), 9) : housePath(px(v.x), py(v.y), 8);
    el('path', {
      d, fill: SEAT_COLORS[b.seat], class: b.city ? 'city' : 'settlement',
      'data-building': b.vertex,
    }, bG);
    // A city's window: it reads as a city at a glance, whatever the colour.
    if (b.city) el('rect', { x: px(v.x) + 3, y: py(v.y) + 1, width: 5, height: 5, class: 'city-window' }, bG);
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
    // The setup's hint: how many pips the spot's tiles have.
    if (hints) {
      const n = el('text', { x: px(v.x), y: py(v.y) + 1, 'text-anchor': 'middle', 'dominant-baseline': 'middle', class: 'hl-pips', 'data-pips': vertexPips(view, id) }, hlG);
      n.textContent = String(vertexPips(view, id));
    }
    const c = el('circle', {
      cx: px(v.x), cy: py(v.y), r: HIT / 2, class: 'hl hl-hit', 'data-vertex': id, 'data-kind': kind, tabindex: 0,
    }, hlG);
    pickable(c, kind, id);
  }
}
