/** Where a key press moves the focused cell of a wrapping grid of `count` items laid out in `cols` columns. */
export interface GridPosition {
  index: number;
  cols: number;
  count: number;
  pageRows: number;
}

/**
 * Target index of a navigation key in the picker grid, or null when the key does not navigate.
 * Follows the WAI-ARIA APG grid pattern (https://www.w3.org/WAI/ARIA/apg/patterns/grid/): arrows move
 * one cell (Left/Right wrap across rows, since items flow), Home/End go to the first/last cell of the
 * row and Ctrl+Home/End to the first/last cell of the grid, PageUp/PageDown move by the rows in view.
 * Results are clamped to [0, count − 1].
 */
export function navTarget(key: string, ctrl: boolean, p: GridPosition): number | null {
  const { index, cols, count, pageRows } = p;
  if (count === 0) return null;
  const last = count - 1;
  const clamp = (i: number): number => Math.max(0, Math.min(last, i));
  const rowStart = index - (index % cols);
  switch (key) {
    case 'ArrowRight':
      return clamp(index + 1);
    case 'ArrowLeft':
      return clamp(index - 1);
    case 'ArrowDown':
      return index + cols <= last ? index + cols : index;
    case 'ArrowUp':
      return index - cols >= 0 ? index - cols : index;
    case 'Home':
      return ctrl ? 0 : rowStart;
    case 'End':
      return ctrl ? last : clamp(rowStart + cols - 1);
    case 'PageDown':
      return clamp(index + Math.max(1, pageRows) * cols);
    case 'PageUp':
      return clamp(index - Math.max(1, pageRows) * cols);
    default:
      return null;
  }
}

/** Indices passed over when moving from `from` to `to` (both included), in travel order: what Shift+move adds to the selection. */
export function travelled(from: number, to: number): number[] {
  const step = to >= from ? 1 : -1;
  const out: number[] = [];
  for (let i = from; step > 0 ? i <= to : i >= to; i += step) out.push(i);
  return out;
}
