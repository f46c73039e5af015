/**
 * What text an asset is embedded with (the `embed_text` job of service.ts): pure functions of the asset row,
 * its enrichment facts and, for an asset with nothing but a file name, the WordNet thesaurus.
 */
import type { EnrichmentColour, EnrichmentRow } from '../db/ports/asset-enrichment-store.ts';
import type { AssetRow } from '../db/ports/asset-store.ts';
import { embeddingText, fallbackEmbeddingText, nameWords } from '../domain/media/alt-text.ts';
import { COLOUR_NAMES, MONOCHROME } from '../domain/media/colour.ts';
import { broaderWords, type Thesaurus } from '../domain/search/concepts.ts';

/**
 * Auto tags left out of the embedding text (still shown): measured colours and the absence of colour,
 * which search checks against the measurement (domain/search/coverage.ts), not against words' meanings.
 */
const DESCRIPTIVE_ONLY_TAGS: ReadonlySet<string> = new Set([...COLOUR_NAMES, MONOCHROME]);
/** Tesseract page confidence from which OCR text joins the embedding text. */
const OCR_EMBED_MIN_CONFIDENCE = 75;

/** Names of an asset's dominant colours (largest share first), without repeats, at most 3. */
function colourNames(colors: readonly EnrichmentColour[]): string[] {
  return [...new Set(colors.map((c) => c.name))].slice(0, 3);
}

/** The generation prompt in an asset's `provenance`, or null for an asset that was not generated. */
export function promptOf(row: Pick<AssetRow, 'provenance'>): string | null {
  const prompt = row.provenance?.prompt;
  return typeof prompt === 'string' ? prompt : null;
}

/**
 * Whether the asset has nothing but its file name to say what it shows: no user alt text, no caption, no
 * tags, no purpose, no prompt. Such an asset's text also gets its name's broader WordNet words.
 */
export function nameOnly(row: AssetRow, facts: EnrichmentRow | undefined): boolean {
  return !row.user_fields.includes('alt_text') && !facts?.caption && row.tags.length === 0 && !row.purpose && !promptOf(row);
}

/**
 * The text to embed for an asset, and the fallback embedded instead when the text is empty or has no word
 * the embedder knows (IMG_2682.heic, no metadata, no text in the picture): the asset's kind, orientation
 * and colours.
 * @param thesaurus WordNet, given for a `nameOnly` asset: its name's nouns bring their broader words
 *   ("prairie_falcon.jpg" → "falcon", "hawk"), the general words queries use; null otherwise
 */
export function assetEmbeddingText(
  row: AssetRow,
  facts: EnrichmentRow | undefined,
  thesaurus: Thesaurus | null,
): { text: string; fallback: string } {
  const userAlt = row.user_fields.includes('alt_text');
  let text = embeddingText({
    name: row.name,
    // the user's words, else a vision model's caption (the heuristic alt text only restates other fields)
    userAltText: userAlt ? row.alt_text : (facts?.caption ?? null),
    tags: row.tags,
    purpose: row.purpose,
    // Photo OCR is mostly fragments ("JPA HOPADILLO BBH") that pull the mean vector off-topic; it stays
    // searchable lexically. Confident pages (documents, screenshots) are embedded.
    ocrText: (facts?.ocr_confidence ?? 0) >= OCR_EMBED_MIN_CONFIDENCE ? row.ocr_text : null,
    // Colour tags are on nearly every photo and would make all photos look alike.
    autoTags: row.auto_tags.filter((t) => !DESCRIPTIVE_ONLY_TAGS.has(t)),
    prompt: promptOf(row),
  });
  const broader = thesaurus ? broaderWords(thesaurus, nameWords(row.name).split(' ').filter(Boolean)) : [];
  if (broader.length) text = `${text}. ${broader.join(', ')}`;
  return { text, fallback: fallbackEmbeddingText({ kind: row.kind, colours: colourNames(facts?.colors ?? []) }) };
}
