import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useEffectEvent, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { Asset } from '../../shared/schemas/asset.ts';
import { navTarget } from './grid-nav.ts';

/** Grid geometry, px. Rows have a fixed height so the virtualizer never measures. */
const CELL_MIN_PX = 116;
const GAP_PX = 8;
const ROW_PX = 156;
/** Height of the grid's scrolling viewport when the host leaves room for it, px. */
export const GRID_VIEWPORT_PX = 432;

export interface PickerGridProps {
  items: (Asset | undefined)[];
  /** total matches (rows are laid out for all of them; unloaded cells show placeholders) */
  count: number;
  /** height of the scrolling viewport, px (default GRID_VIEWPORT_PX; less when the host's height is short) */
  viewportPx?: number;
  /** asset id → 1-based position in the selection order */
  order: Map<string, number>;
  focusIndex: number;
  /** bumped when focus should move into the grid (keyboard navigation) */
  focusTick: number;
  thumbnail(id: string): string | null | undefined;
  onVisible: (first: number, last: number) => void;
  /** width of one cell, CSS px (previews are sized from it) */
  onCellWidth: (px: number) => void;
  onMove(target: number, extend: boolean, pageRows: number): void;
  onToggle(index: number): void;
  onConfirm(): void;
  onClear(): void;
  onFocusCell(index: number): void;
}

/**
 * The picker's virtualized grid (@tanstack/react-virtual over rows, columns from the container width):
 * only the rows in view plus overscan are in the DOM. ARIA grid semantics with roving tabindex: one cell
 * is tabbable; rows and cells carry aria-rowindex/aria-colindex since most are virtual.
 * Keys: arrows, Home/End (row), Ctrl+Home/End (grid), PageUp/PageDown, Space toggles, Shift+arrows
 * extend the selection, Enter confirms, Escape clears. Modelled on TanStack/virtual examples/react/variable.
 */
export function PickerGrid(p: PickerGridProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const [cols, setCols] = useState(4);
  const rowCount = Math.ceil(p.count / cols);
  const viewportPx = p.viewportPx ?? GRID_VIEWPORT_PX;
  const pageRows = Math.max(1, Math.floor(viewportPx / ROW_PX));
  const { onCellWidth } = p;

  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const measure = (): void => {
      const inner = el.clientWidth - 12;
      const n = Math.max(1, Math.floor((inner + GAP_PX) / (CELL_MIN_PX + GAP_PX)));
      setCols(n);
      onCellWidth(Math.round((inner - (n - 1) * GAP_PX) / n - 8));
    };
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [onCellWidth]);

  const virtualizer = useVirtualizer({
    count: rowCount,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_PX,
    overscan: 2,
  });
  const rows = virtualizer.getVirtualItems();
  const firstRow = rows[0]?.index ?? 0;
  const lastRow = rows[rows.length - 1]?.index ?? 0;

  const { onVisible, count } = p;
  useEffect(() => {
    onVisible(firstRow * cols, Math.min(count - 1, (lastRow + 1) * cols - 1));
  }, [firstRow, lastRow, cols, count, onVisible]);

  // Keyboard moves (each bumps focusTick): scroll the target row into view, then move DOM focus once the
  // cell is rendered. The move reads the latest index, columns and count.
  const followFocus = useEffectEvent((): (() => void) | undefined => {
    if (p.focusTick === 0 || p.count === 0) return;
    virtualizer.scrollToIndex(Math.floor(p.focusIndex / cols), { align: 'auto' });
    let frames = 0;
    let raf = 0;
    const tryFocus = (): void => {
      const cell = scrollRef.current?.querySelector<HTMLElement>(`[data-index="${p.focusIndex}"]`);
      if (cell) {
        if (document.activeElement !== cell) cell.focus({ preventScroll: true });
        return;
      }
      if (frames++ < 30) raf = requestAnimationFrame(tryFocus);
    };
    tryFocus();
    return () => cancelAnimationFrame(raf);
  });
  const focusTick = p.focusTick;
  useEffect(() => followFocus(), [focusTick]);

  function onKeyDown(e: KeyboardEvent<HTMLDivElement>): void {
    const target = navTarget(e.key, e.ctrlKey || e.metaKey, { index: p.focusIndex, cols, count: p.count, pageRows });
    if (target !== null) {
      e.preventDefault();
      p.onMove(target, e.shiftKey && e.key.startsWith('Arrow'), pageRows);
      return;
    }
    if (e.key === ' ' || e.key === 'Spacebar') {
      e.preventDefault();
      p.onToggle(p.focusIndex);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      p.onConfirm();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      p.onClear();
    }
  }

  return (
    <div
      ref={scrollRef}
      className="grid-scroll"
      style={{ height: viewportPx }}
      role="grid"
      aria-label="Assets"
      aria-multiselectable="true"
      aria-rowcount={rowCount}
      aria-colcount={cols}
      data-testid="picker-grid"
      onKeyDown={onKeyDown}
    >
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }} role="presentation">
        {rows.map((row) => (
          <div
            key={row.key}
            role="row"
            aria-rowindex={row.index + 1}
            className="grid-row"
            style={{ transform: `translateY(${row.start}px)`, height: ROW_PX, gridTemplateColumns: `repeat(${cols}, minmax(0, 1fr))` }}
          >
            {Array.from({ length: cols }, (_, c) => {
              const index = row.index * cols + c;
              if (index >= p.count) return null;
              const a = p.items[index];
              const pos = a ? p.order.get(a.id) : undefined;
              const thumb = a ? p.thumbnail(a.id) : undefined;
              return (
                <div
                  key={c}
                  role="gridcell"
                  aria-colindex={c + 1}
                  aria-selected={pos !== undefined}
                  // Loaded cells are named by their content ("Selected 2 falcon.jpg"), so the name holds the visible text (WCAG 2.5.3).
                  aria-label={a ? undefined : 'loading'}
                  tabIndex={index === p.focusIndex ? 0 : -1}
                  data-index={index}
                  data-asset-id={a?.id}
                  data-testid="picker-cell"
                  className={`cell${pos ? ' selected' : ''}${a ? '' : ' placeholder'}`}
                  onFocus={() => p.onFocusCell(index)}
                  onClick={() => a && p.onToggle(index)}
                >
                  {thumb ? (
                    <img className="thumb" src={thumb} alt="" draggable={false} />
                  ) : (
                    <div className="thumb thumb-empty">{a ? (thumb === null ? a.kind : '') : '…'}</div>
                  )}
                  {pos !== undefined && <span className="sr-only">Selected </span>}
                  {pos !== undefined && (
                    <span className="badge" data-testid="selection-badge">
                      {pos}
                    </span>
                  )}
                  {pos !== undefined && ' '}
                  <span className="cell-name" title={a?.name}>
                    {a ? a.name : ''}
                  </span>
                </div>
              );
            })}
          </div>
        ))}
      </div>
    </div>
  );
}
