import { useMemo, useState } from 'react';
import type { Asset } from '../../shared/schemas/asset.ts';
import { travelled } from './grid-nav.ts';
import { plural } from './handoff.ts';

/** Most assets one confirmation may carry (`submit_selection` accepts 1–50 ids, SubmitSelectionArgsSchema). */
export const MAX_SELECTION = 50;
export const CAP_MESSAGE = `You can choose up to ${MAX_SELECTION} assets at once. Remove one to add another.`;

/** The picker's ordered multi-selection (numbered badges), capped at `MAX_SELECTION`. */
export interface Selection {
  /** chosen assets in the order they were chosen */
  items: Asset[];
  /** asset id → 1-based position */
  order: Map<string, number>;
  /** the last add was refused because the selection is full */
  capped: boolean;
  /** Add an asset at the end, or take it out. */
  toggle: (a: Asset) => void;
  /** Shift+arrow: add every not yet chosen asset passed from grid index `from` to `to` (inclusive), up to the cap. */
  extend: (items: (Asset | undefined)[], from: number, to: number) => void;
  clear: () => void;
}

/**
 * Selection state of the picker. Every change is announced through `announce` (the panel's polite live
 * region) in words a screen-reader user can act on; `active` is false once the choice is being sent.
 */
export function useSelection(active: boolean, announce: (text: string) => void): Selection {
  const [items, setItems] = useState<Asset[]>([]);
  const [capped, setCapped] = useState(false);
  const order = useMemo(() => new Map(items.map((a, i) => [a.id, i + 1])), [items]);

  function toggle(a: Asset): void {
    if (!active) return;
    const removing = items.some((x) => x.id === a.id);
    if (!removing && items.length >= MAX_SELECTION) {
      setCapped(true);
      announce(CAP_MESSAGE);
      return;
    }
    const next = removing ? items.filter((x) => x.id !== a.id) : [...items, a];
    setCapped(false);
    setItems(next);
    announce(
      `${removing ? 'Removed' : 'Selected'} ${a.name}${removing ? '' : ` as number ${next.length}`}. ${plural(next.length)} selected.`,
    );
  }

  function extend(grid: (Asset | undefined)[], from: number, to: number): void {
    if (!active) return;
    const have = new Set(items.map((a) => a.id));
    const add: Asset[] = [];
    let full = false;
    for (const i of travelled(from, to)) {
      const a = grid[i];
      if (!a || have.has(a.id)) continue;
      if (items.length + add.length >= MAX_SELECTION) {
        full = true;
        break;
      }
      have.add(a.id);
      add.push(a);
    }
    if (add.length) setItems([...items, ...add]);
    setCapped(full);
    if (add.length || full) announce(`${plural(items.length + add.length)} selected.${full ? ` ${CAP_MESSAGE}` : ''}`);
  }

  function clear(): void {
    if (!active || items.length === 0) return;
    setItems([]);
    setCapped(false);
    announce('Selection cleared. 0 assets selected.');
  }

  return { items, order, capped, toggle, extend, clear };
}
