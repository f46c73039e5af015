import { useEffect, useEffectEvent, useState } from 'react';
import type { Asset } from '../../shared/schemas/asset.ts';

/** What the live region says when Space lands on a cell whose asset has not arrived yet, and when Space cancels that. */
export const PENDING_MESSAGE = 'This asset is still loading; Space takes effect when it appears.';
export const PENDING_CANCELLED = 'Space again: this asset stays as it was.';

/**
 * Space on a grid cell whose page is still loading (after a far jump: End, PageDown, Ctrl+End) is kept
 * and applied when the asset arrives, for the same query (a new query drops it); Space again on the
 * same cell before then cancels it. Without this, Space on such a cell did nothing and said nothing.
 * @param items the grid's assets by index (undefined: not loaded yet)
 * @param query the query the indexes belong to (compared by identity)
 * @returns the grid's Space handler: toggle the asset at `index` now or once it has loaded
 */
export function usePendingToggle(
  items: (Asset | undefined)[],
  query: unknown,
  toggle: (a: Asset) => void,
  announce: (text: string) => void,
): (index: number) => void {
  const [pending, setPending] = useState<{ index: number; query: unknown } | null>(null);
  const apply = useEffectEvent((a: Asset) => toggle(a));
  useEffect(() => {
    if (!pending) return;
    if (pending.query !== query) return setPending(null);
    const a = items[pending.index];
    if (a) {
      setPending(null);
      apply(a);
    }
  }, [pending, items, query]);
  return (index) => {
    const a = items[index];
    if (a) {
      setPending(null);
      toggle(a);
      return;
    }
    const again = pending !== null && pending.index === index && pending.query === query;
    setPending(again ? null : { index, query });
    announce(again ? PENDING_CANCELLED : PENDING_MESSAGE);
  };
}
