import type { ReactNode } from 'react';

/** The picker's title row with its match count ("12 assets", "No matches", or nothing while loading). */
export function PickerHeader({ status }: { status: string }) {
  return (
    <div className="picker-header">
      <h1>Choose assets</h1>
      <span className="muted" data-testid="match-count">
        {status}
      </span>
    </div>
  );
}

/** A picker that shows one message instead of the grid (cancelled, declined elsewhere, failed). */
export function PickerNotice({ children }: { children: ReactNode }) {
  return (
    <main className="panel picker">
      <PickerHeader status="" />
      {children}
    </main>
  );
}

/** The first page is on its way: a status line and a skeleton grid. */
export function PickerLoading() {
  return (
    <main className="panel picker" aria-busy="true">
      <PickerHeader status="" />
      <p className="muted" role="status" data-testid="loading">
        Loading assets…
      </p>
      <div className="skeleton-grid" aria-hidden="true">
        {Array.from({ length: 8 }, (_, i) => (
          <div key={i} className="skeleton-cell" />
        ))}
      </div>
    </main>
  );
}
