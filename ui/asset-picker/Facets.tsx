import type { Orientation } from '../../shared/schemas/asset.ts';
import type { FacetsResult } from '../../shared/schemas/panel.ts';

const label = (s: string): string => s.replace(/[_-]/g, ' ');

interface Option {
  value: string;
  text: string;
  count?: number | undefined;
  testId: string;
}

/**
 * A row of pill-styled native radio buttons: ONE Tab stop for the whole group, arrow keys move the
 * choice (HTML radio group behaviour), so the filters cost three Tab stops in all instead of one per
 * category (WAI-ARIA APG "Radio Group"). The checked pill is filled and bold, the focused one ringed.
 */
function PillRadios({
  name,
  legend,
  options,
  value,
  onChange,
  testId,
  small,
}: {
  name: string;
  legend: string;
  options: Option[];
  value: string;
  onChange: (v: string) => void;
  testId: string;
  small?: boolean;
}) {
  return (
    <fieldset className={`pills${small ? ' small' : ''}`} data-testid={testId}>
      <legend className="sr-only">{legend}</legend>
      {options.map((o) => (
        <label key={o.value} className="pill" data-testid={o.testId}>
          <input type="radio" name={name} value={o.value} checked={o.value === value} onChange={() => onChange(o.value)} />
          <span>
            {o.text}
            {o.count !== undefined && <span className="count"> {o.count}</span>}
          </span>
        </label>
      ))}
    </fieldset>
  );
}

/** Category browser: categories with counts, and the subtypes of the active category. Hidden when the counts could not be loaded. */
export function Facets({
  facets,
  category,
  subtype,
  onChange,
}: {
  facets: FacetsResult | null | 'failed';
  category: string | null;
  subtype: string | null;
  onChange: (category: string | null, subtype: string | null) => void;
}) {
  if (facets === 'failed') return null;
  if (!facets)
    return (
      <p className="facets muted" data-testid="facets-loading">
        Loading categories…
      </p>
    );
  const active = facets.categories.find((c) => c.category === category);
  return (
    <div className="facets" data-testid="facets">
      <PillRadios
        name="category"
        legend="Category"
        testId="category-filter"
        value={category ?? ''}
        onChange={(v) => onChange(v || null, null)}
        options={[
          { value: '', text: 'All', count: facets.total, testId: 'category-all' },
          ...facets.categories.map((c) => ({
            value: c.category,
            text: label(c.category),
            count: c.count,
            testId: `category-${c.category}`,
          })),
        ]}
      />
      {active && active.subtypes.length > 0 && (
        <PillRadios
          small
          name="subtype"
          legend={`Type of ${label(active.category)}`}
          testId="subtype-filter"
          value={subtype ?? ''}
          onChange={(v) => onChange(active.category, v || null)}
          options={[
            { value: '', text: `Any ${label(active.category)}`, testId: 'subtype-any' },
            ...active.subtypes.map((s) => ({ value: s.subtype, text: label(s.subtype), count: s.count, testId: `subtype-${s.subtype}` })),
          ]}
        />
      )}
    </div>
  );
}

const SHAPES: { value: Orientation | ''; text: string }[] = [
  { value: '', text: 'Any shape' },
  { value: 'landscape', text: 'Landscape' },
  { value: 'portrait', text: 'Portrait' },
  { value: 'square', text: 'Square' },
];

/** Orientation filter (search arg `orientation`): landscape for heroes and banners, portrait for mobile and galleries. */
export function ShapeFilter({ value, onChange }: { value: Orientation | null; onChange: (o: Orientation | null) => void }) {
  return (
    <PillRadios
      small
      name="shape"
      legend="Shape"
      testId="shape-filter"
      value={value ?? ''}
      onChange={(v) => onChange((v || null) as Orientation | null)}
      options={SHAPES.map((s) => ({ value: s.value, text: s.text, testId: `shape-${s.value || 'any'}` }))}
    />
  );
}
