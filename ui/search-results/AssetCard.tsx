import type { Asset } from '../../shared/schemas/asset.ts';

/** One result: preview (a `data:` URL from the thumbnails action), name (full name on hover), size, format and tags. */
export function AssetCard({ asset, index, thumbnail }: { asset: Asset; index: number; thumbnail: string | null | undefined }) {
  return (
    <li
      className="result-card"
      data-testid="asset-card"
      data-asset-id={asset.id}
      data-index={index}
      aria-label={`${index + 1}. ${asset.name}`}
    >
      {thumbnail ? (
        <img className="thumb" src={thumbnail} alt={asset.alt_text ?? asset.name} />
      ) : (
        <div className="thumb thumb-empty" aria-hidden="true">
          {thumbnail === null ? asset.kind : ''}
        </div>
      )}
      <div className="card-name" title={asset.name}>
        {asset.name}
      </div>
      <div className="muted card-meta">
        {asset.width && asset.height ? `${asset.width}×${asset.height}` : asset.kind} · {asset.format}
      </div>
      {asset.tags.length > 0 && (
        <div className="muted card-tags" title={asset.tags.join(', ')}>
          {asset.tags.slice(0, 3).join(' · ')}
        </div>
      )}
      {asset.matched_by?.length === 1 && asset.matched_by[0] === 'meaning' && (
        <div
          className="muted card-match"
          data-testid="meaning-only"
          title={`found by meaning only${asset.relevance !== null ? ` (relevance ${asset.relevance.toFixed(2)})` : ''}, not by its words`}
        >
          related by meaning
        </div>
      )}
    </li>
  );
}
