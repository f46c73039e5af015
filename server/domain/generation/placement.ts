/**
 * Placement of composite subjects from a prompt's simple placement words (local compositor). Pure.
 *
 * Grammar (case-insensitive, per clause; clauses are split on `;`, `.`, `, then`, ` then `):
 * - horizontal: `left`, `right`, `center`/`centre`/`middle`
 * - vertical: `top`/`upper`, `bottom`/`lower`, `center` (when no horizontal word contradicts it)
 * - scale: `NN%` or `scale 0.N` (fraction of the canvas' box), or `tiny` 0.2, `small` 0.35,
 *   `medium` 0.5, `large`/`big` 0.7, `full`/`fill` 0.95
 * Clauses that carry a placement word are assigned to subjects in order; subjects without their own
 * clause are spread evenly left to right at the last seen scale.
 */

export interface Placement {
  /** horizontal anchor: 0 = left edge (inside the margin), 0.5 = centre, 1 = right edge */
  h: number;
  /** vertical anchor: 0 = top, 0.5 = middle, 1 = bottom */
  v: number;
  /** the subject fits inside a box of this fraction of the canvas width and height, 0–1 */
  scale: number;
  /** the words that decided it, for the result notes */
  words: string[];
}

const SIZE_WORDS: Record<string, number> = { tiny: 0.2, small: 0.35, medium: 0.5, large: 0.7, big: 0.7, full: 0.95, fill: 0.95 };
const DEFAULT_SCALE = 0.6;
const MARGIN = 0.06;

interface ClauseHit {
  h?: number;
  v?: number;
  scale?: number;
  words: string[];
}

function parseClause(clause: string): ClauseHit | null {
  const words: string[] = [];
  const w = clause.toLowerCase();
  let h: number | undefined;
  let v: number | undefined;
  let scale: number | undefined;
  const has = (re: RegExp): boolean => re.test(w);
  if (has(/\bleft\b/)) {
    h = 0;
    words.push('left');
  } else if (has(/\bright\b/)) {
    h = 1;
    words.push('right');
  }
  if (has(/\b(top|upper)\b/)) {
    v = 0;
    words.push('top');
  } else if (has(/\b(bottom|lower)\b/)) {
    v = 1;
    words.push('bottom');
  }
  if (has(/\b(center|centre|middle|centered|centred)\b/)) {
    if (h === undefined) h = 0.5;
    if (v === undefined) v = 0.5;
    words.push('center');
  }
  const pct = /(\d{1,3}(?:\.\d+)?)\s*%/.exec(w);
  const sc = /\bscale(?:d)?\s*(?:to|of|=|:)?\s*(0?\.\d+|1(?:\.0+)?)\b/.exec(w);
  if (pct) {
    scale = Number(pct[1]) / 100;
    words.push(`${pct[1]}%`);
  } else if (sc) {
    scale = Number(sc[1]);
    words.push(`scale ${sc[1]}`);
  } else {
    const sw = Object.keys(SIZE_WORDS).find((k) => new RegExp(`\\b${k}\\b`).test(w));
    if (sw) {
      scale = SIZE_WORDS[sw];
      words.push(sw);
    }
  }
  if (h === undefined && v === undefined && scale === undefined) return null;
  return { h, v, scale, words };
}

/**
 * Placements for `count` subjects from `prompt`.
 * @returns one placement per subject, in subject order
 */
export function planPlacements(prompt: string, count: number): Placement[] {
  const clauses = prompt
    .split(/;|\.(?:\s|$)|,\s*then\b|\bthen\b/i)
    .map((c) => c.trim())
    .filter(Boolean);
  const hits = clauses.map(parseClause).filter((c): c is ClauseHit => c !== null);
  const out: Placement[] = [];
  let lastScale =
    hits.find((c) => c.scale !== undefined)?.scale ?? (count > 1 ? Math.min(DEFAULT_SCALE, 0.9 / count + 0.1) : DEFAULT_SCALE);
  for (let i = 0; i < count; i++) {
    const hit = hits[i];
    const scale = Math.min(1, Math.max(0.05, hit?.scale ?? lastScale));
    lastScale = scale;
    if (hit) {
      out.push({ h: hit.h ?? 0.5, v: hit.v ?? 0.5, scale, words: hit.words });
    } else {
      const anchor = count === 1 ? 0.5 : i / (count - 1);
      out.push({ h: anchor, v: 0.5, scale, words: count === 1 ? ['center (default)'] : [`spread ${i + 1}/${count} (default)`] });
    }
  }
  return out;
}

/**
 * Pixel box of a subject of `subjectW`×`subjectH` px placed on a `canvasW`×`canvasH` canvas: fitted
 * inside scale × canvas (aspect kept), then positioned by its anchors between the margins (6 % of
 * each edge), clamped inside the canvas.
 */
export function placementBox(
  p: Placement,
  canvasW: number,
  canvasH: number,
  subjectW: number,
  subjectH: number,
): { left: number; top: number; width: number; height: number } {
  const fit = Math.min((p.scale * canvasW) / subjectW, (p.scale * canvasH) / subjectH);
  const width = Math.max(1, Math.min(canvasW, Math.round(subjectW * fit)));
  const height = Math.max(1, Math.min(canvasH, Math.round(subjectH * fit)));
  const place = (anchor: number, canvas: number, size: number): number => {
    const margin = Math.round(canvas * MARGIN);
    const free = canvas - 2 * margin - size;
    const pos = free >= 0 ? margin + anchor * free : (canvas - size) * anchor;
    return Math.min(canvas - size, Math.max(0, Math.round(pos)));
  };
  return { left: place(p.h, canvasW, width), top: place(p.v, canvasH, height), width, height };
}
