import type { Asset } from '../../shared/schemas/asset.ts';

/**
 * A suggestion's relevance as a person reads it: a word and a percentage ("weakly related, 25%").
 * Suggestions score below 0.5 (AssetPageSchema: 0.5 is the least a match has), so every band here is
 * below "match". null (no score) reads "unscored".
 */
export function relevanceWords(relevance: number | null): string {
  if (relevance === null) return 'unscored';
  const pct = Math.round(relevance * 100);
  const band = relevance >= 0.35 ? 'somewhat related' : relevance >= 0.2 ? 'weakly related' : 'barely related';
  return `${band}, ${pct}%`;
}

const HOW: Record<string, string> = {
  text: 'shares some of your words',
  typo: 'a similar spelling',
  concept: 'a related word',
  meaning: 'similar in meaning',
  visual: 'looks a little alike',
};

/** How a suggestion relates to the query, in words ("shares some of your words"). */
export function relationWords(matchedBy: readonly string[] | null): string {
  const parts = (matchedBy ?? []).map((m) => HOW[m]).filter((s): s is string => Boolean(s));
  return parts.length ? parts.join(' and ') : 'near in the ranking';
}

/**
 * The search's suggestions (`AssetPage.suggestions`: the nearest assets that are NOT matches) in their
 * own section, visibly apart from the results: a dashed frame, a heading that says they do not match,
 * smaller previews, and each one's relevance in words. They are never counted with the results. In the
 * picker (`onToggle`) each can still be chosen: a toggle button per suggestion showing its selection number.
 */
export function Suggestions({
  items,
  query,
  thumbnail,
  order,
  onToggle,
  scrolls,
}: {
  items: Asset[];
  /** the panel lets this section scroll inside (it is then a keyboard stop, as a scrolling region must be) */
  scrolls?: boolean | undefined;
  query: string | null;
  thumbnail: (id: string) => string | null | undefined;
  order?: ReadonlyMap<string, number> | undefined;
  onToggle?: ((a: Asset) => void) | undefined;
}) {
  if (items.length === 0) return null;
  return (
    <section className="suggestions" data-testid="suggestions" aria-labelledby="suggestions-title" tabIndex={scrolls ? 0 : undefined}>
      <h2 id="suggestions-title" className="suggestions-title">
        Not a match — the closest in your library
      </h2>
      <p className="notice-hint">
        {items.length === 1 ? 'This asset does' : `These ${items.length} assets do`} not match{query ? ` “${query}”` : ''} and{' '}
        {items.length === 1 ? 'is' : 'are'} not counted in the results
        {onToggle ? '; you can still choose one.' : '.'}
      </p>
      <ul className="suggestion-list" aria-label="Closest assets (not matches)">
        {items.map((a) => {
          const thumb = thumbnail(a.id);
          const pos = order?.get(a.id);
          return (
            <li key={a.id} className={`suggestion${pos !== undefined ? ' selected' : ''}`} data-testid="suggestion" data-asset-id={a.id}>
              {thumb ? (
                <img className="suggestion-thumb" src={thumb} alt={a.alt_text ?? a.name} />
              ) : (
                <div className="suggestion-thumb thumb-empty" aria-hidden="true">
                  {thumb === null ? a.kind : ''}
                </div>
              )}
              <div className="suggestion-text">
                <div className="suggestion-name" title={a.name}>
                  {a.name}
                </div>
                <div className="muted suggestion-relevance" data-testid="suggestion-relevance">
                  {relevanceWords(a.relevance)}: {relationWords(a.matched_by)}
                </div>
              </div>
              {onToggle && (
                <>
                  {pos !== undefined && (
                    <span className="suggestion-badge" data-testid="selection-badge">
                      <span className="sr-only">Selected as number </span>
                      {pos}
                    </span>
                  )}
                  <button
                    type="button"
                    className="suggestion-pick"
                    aria-pressed={pos !== undefined}
                    onClick={() => onToggle(a)}
                    data-testid="suggestion-pick"
                  >
                    Choose<span className="sr-only"> {a.name}</span>
                  </button>
                </>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
