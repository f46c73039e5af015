import type { McpUiHostContext } from '@modelcontextprotocol/ext-apps';
import { useLayoutEffect, useState } from 'react';

/** Inline panels in a chat column stay at most this tall, px, unless the host allows less. */
export const INLINE_MAX_HEIGHT_PX = 640;

/** How tall a panel may be: `maxPx` (null = unbounded) and whether the host fixed the height. */
export interface PanelHeight {
  maxPx: number | null;
  fixed: boolean;
}

/**
 * The panel's height budget from the host context (MCP Apps spec 2026-01-26 "Container Dimensions"):
 * a fixed `height` is filled exactly; a `maxHeight` is a ceiling the panel must stay under (it
 * scrolls inside instead of growing); inline display adds our own chat-column cap
 * (`inlineCapPx`, default `INLINE_MAX_HEIGHT_PX`) so 50 results do not become a 6,000 px iframe.
 * Fullscreen without a `maxHeight` is unbounded.
 */
export function panelHeight(ctx: Partial<McpUiHostContext> | undefined, inlineCapPx: number = INLINE_MAX_HEIGHT_PX): PanelHeight {
  const d = ctx?.containerDimensions;
  if (d && 'height' in d && d.height > 0) return { maxPx: Math.floor(d.height), fixed: true };
  const hostMax = d && 'maxHeight' in d && typeof d.maxHeight === 'number' && d.maxHeight > 0 ? d.maxHeight : Infinity;
  const cap = ctx?.displayMode === 'fullscreen' || ctx?.displayMode === 'pip' ? Infinity : inlineCapPx;
  const max = Math.min(hostMax, cap);
  return { maxPx: Number.isFinite(max) ? Math.floor(max) : null, fixed: false };
}

/**
 * The content-box width of an element in CSS px, kept current with a ResizeObserver (0 before layout).
 * Returns a callback ref to put on the element, so an element that mounts later is measured too.
 */
export function useElementWidth<E extends HTMLElement>(): [(el: E | null) => void, number] {
  const [el, setEl] = useState<E | null>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    if (!el) return;
    const measure = (): void => setWidth(el.clientWidth);
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [el]);
  return [setEl, width];
}
