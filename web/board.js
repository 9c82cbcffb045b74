// The board as an SVG: tiles, number tokens, harbors, robber, pieces and the
// highlighted legal spots. Geometry comes from GET /api/board (protocol.md 14).

const SVG = 'http://www.w3.org/2000/svg';
const R = 50; // hex circumradius in SVG units
const SX = (R * Math.sqrt(3)) / 2;
const SY = R / 2;

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
const PIPS = { 2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 8: 5, 9: 4, 10: 3, 11: 2, 12: 1 };

let board = null;

/** Loads the fixed topology once. */
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
 */
export function drawBoard(svg, view, hl, onPick) {
  svg.replaceChildren();
  svg.setAttribute('viewBox', '-300 -275 600 550');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', 'game board');
  el('rect', { x: -300, y: -275, width: 600, height: 550, class: 'sea', rx: 24 }, svg);

  const tilesG = el('g', { class: 'tiles' }, svg);
  board.tiles.forEach((t) => {
    const terrain = view.map.terrain[t.id];
    const poly = el('polygon', {
      points: hexPoints(t),
      fill: TERRAIN_COLORS[terrain] || '#ccc',
      class: 'tile',
      'data-tile-base': t.id,
    }, tilesG);
    const title = el('title', {}, poly);
    title.textContent = `tile ${t.id}: ${terrain}${view.map.numbers[t.id] ? ' ' + view.map.numbers[t.id] : ''}`;
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
      txt.textContent = 'desert';
    }
  });

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
      res.textContent = h.resource;
    }
    const title = el('title', {}, g);
    title.textContent = h.resource ? `2:1 ${h.resource} harbor` : '3:1 harbor';
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

  // Highlighted legal spots (the only clickable things).
  const hlG = el('g', { class: 'highlights' }, svg);
  if (hl.tiles.size) {
    for (const id of hl.tiles) {
      const t = board.tiles[id];
      const poly = el('polygon', {
        points: hexPoints(t), class: 'hl hl-tile', 'data-tile': id, tabindex: 0,
      }, hlG);
      poly.addEventListener('click', () => onPick('tile', id));
    }
  }
  for (const id of hl.edges) {
    const e = board.edges[id];
    const a = board.vertices[e.a];
    const b = board.vertices[e.b];
    const line = el('line', {
      x1: px(a.x), y1: py(a.y), x2: px(b.x), y2: py(b.y), class: 'hl hl-edge', 'data-edge': id, tabindex: 0,
    }, hlG);
    line.addEventListener('click', () => onPick('edge', id));
  }
  for (const [id, kind] of hl.vertices) {
    const v = board.vertices[id];
    const c = el('circle', {
      cx: px(v.x), cy: py(v.y), r: 10, class: `hl hl-vertex hl-${kind}`, 'data-vertex': id, tabindex: 0,
    }, hlG);
    c.addEventListener('click', () => onPick(kind, id));
  }
}

/** The bank ratios of `seat` (4, 3 or 2 per resource), from its buildings and the harbors. */
export function maritimeRatios(view, seat) {
  const order = ['lumber', 'brick', 'wool', 'grain', 'ore'];
  const ratios = [4, 4, 4, 4, 4];
  const mine = new Set(view.buildings.filter((b) => b.seat === seat).map((b) => b.vertex));
  for (const h of view.map.harbors) {
    const e = board.edges[h.edge];
    if (!mine.has(e.a) && !mine.has(e.b)) continue;
    if (h.resource) ratios[order.indexOf(h.resource)] = 2;
    else for (let i = 0; i < 5; i++) ratios[i] = Math.min(ratios[i], 3);
  }
  return ratios;
}
