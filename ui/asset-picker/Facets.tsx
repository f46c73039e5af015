import type { Orientation } from '../../shared/schemas/asset.ts';
import type { FacetsResult } from '../../shared/schemas/panel.ts';

const label = (s: string): string => s.replace(/[_-]/g, ' ');

/** Category browser: categories with counts, and the subtypes of the active category. */
export function Facets({ facets, category, subtype, onChange }: { facets: FacetsResult | null; category: string | null; subtype: string | null; onChange(category: string | null, subtype: string | null): void }) {
  if (!facets) return <nav className="facets muted" aria-label="Categories">Loading categories…</nav>;
  const active = facets.categories.find((c) => c.category === category);
  return (
    <nav className="facets" aria-label="Categories" data-testid="facets">
      <div className="row">
        <button type="button" className="facet" aria-pressed={category === null} onClick={() => onChange(null, null)}>
          All <span className="count">{facets.total}</span>
        </button>
        {facets.categories.map((c) => (
          <button key={c.category} type="button" className="facet" aria-pressed={c.category === category} data-testid={`facet-${c.category}`} onClick={() => onChange(c.category, null)}>
            {label(c.category)} <span className="count">{c.count}</span>
          </button>
        ))}
      </div>
      {active && active.subtypes.length > 0 && (
        <div className="row subtypes" aria-label={`Subtypes of ${label(active.category)}`}>
          {active.subtypes.map((s) => (
            <button key={s.subtype} type="button" className="facet small" aria-pressed={s.subtype === subtype} data-testid={`subtype-${s.subtype}`} onClick={() => onChange(active.category, s.subtype === subtype ? null : s.subtype)}>
              {label(s.subtype)} <span className="count">{s.count}</span>
            </button>
          ))}
        </div>
      )}
    </nav>
  );
}

const SHAPES: { value: Orientation | null; label: string }[] = [
  { value: null, label: 'Any shape' },
  { value: 'landscape', label: 'Landscape' },
  { value: 'portrait', label: 'Portrait' },
  { value: 'square', label: 'Square' },
];

/** Orientation filter (search arg `orientation`): landscape for heroes and banners, portrait for mobile and galleries. */
export function ShapeFilter({ value, onChange }: { value: Orientation | null; onChange(o: Orientation | null): void }) {
  return (
    <div className="row shapes" role="group" aria-label="Shape" data-testid="shape-filter">
      {SHAPES.map((s) => (
        <button key={s.label} type="button" className="facet small" aria-pressed={value === s.value} data-testid={`shape-${s.value ?? 'any'}`} onClick={() => onChange(s.value)}>
          {s.label}
        </button>
      ))}
    </div>
  );
}
