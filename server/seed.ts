import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { AssetCategorySchema, AssetSubtypeSchema } from '../shared/schemas/asset.ts';
import { TagSchema } from '../shared/schemas/common.ts';
import type { App } from './app.ts';
import { packagePath } from './package-root.ts';
import type { Scope } from './domain/scope.ts';
import { storeAsset } from './assets/import.ts';
import { seedDemoCatalog } from './catalog/seed-demo.ts';
import { createApiKey, createTenant, type TenantBundle } from './tenancy/admin.ts';

/** The demo images committed with the repo (copied from the team's reference data, public domain). */
export const DEMO_IMAGES_DIR = packagePath('demo', 'images');
const DEMO_SETTING = 'demo_bundle';
const IMAGE_EXT = /\.(jpe?g|png|webp|gif|avif|tiff?|heic|heif|svg)$/i;

/** Files under `dir` (recursive) that look like images, sorted by path. */
export function listImageFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (IMAGE_EXT.test(e.name)) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/**
 * The metadata `atelier import` (and the demo seed, for a file demo-metadata.json does not list) gives a file:
 * its folders under the imported root, as tags
 * (`nature/prairie_falcon.jpg` → [nature]); nothing for a file at the root. What is given becomes user
 * metadata, which enrichment never replaces, so the file name's words are not typed as alt text or tags:
 * the name is searched as it is, and enrichment writes the alt text from what the file holds (a vision
 * model's caption, the file's own caption, else the name's words and its OCR text).
 */
export function metadataFromPath(file: string, root: string): { tags?: string[] } {
  const folder = path
    .relative(root, path.dirname(file))
    .split(path.sep)
    .filter((s) => s && s !== '.');
  const tags = [...new Set(folder.map((f) => f.toLowerCase()))];
  return tags.length ? { tags } : {};
}

/** `demo-metadata.json` beside the demo images: per relative path, the metadata a merchant would type. */
const DemoEntrySchema = z
  .object({
    alt_text: z.string().min(1).max(1000),
    tags: z.array(TagSchema).max(50),
    purpose: z.string().max(64).optional(),
    category: AssetCategorySchema.optional(),
    subtype: AssetSubtypeSchema.optional(),
  })
  .strict();
const DemoMetadataSchema = z.record(z.string(), z.union([z.string() /* the `_about` note */, DemoEntrySchema]));
type DemoMetadata = z.infer<typeof DemoEntrySchema>;

/**
 * Read `<root>/demo-metadata.json` (keys are paths relative to `root`, `/`-separated).
 * @returns an empty map when the file is absent
 * @throws Error naming the file and the first invalid entry
 */
export function loadDemoMetadata(root: string): Map<string, DemoMetadata> {
  const file = path.join(root, 'demo-metadata.json');
  if (!fs.existsSync(file)) return new Map();
  const parsed = DemoMetadataSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const out = new Map<string, DemoMetadata>();
  for (const [k, v] of Object.entries(parsed.data)) if (typeof v !== 'string') out.set(k, v);
  return out;
}

/** The demo tenant's ids (its API keys are stored only as hashes). */
export type DemoBundle = Omit<TenantBundle, 'api_key'>;

export interface SeedStep {
  (app: App, bundle: DemoBundle, scope: Scope): Promise<void>;
}

/** Seeding run after the demo images on every seed (each step idempotent). */
const DEFAULT_SEED_STEPS: SeedStep[] = [
  // ── catalog ──
  seedDemoCatalog,
];

/**
 * The demo tenant's ids, creating the tenant (one workspace, theme, store and API key) on first use. Several
 * processes may create it at once on a new data dir: the first stored ids win, the others' tenant stays unused.
 * @returns the ids, and the demo API key when this call created it (null otherwise: only its hash is stored)
 */
export async function ensureDemoTenant(app: App): Promise<{ bundle: DemoBundle; api_key: string | null }> {
  const t = app.library.tenancy;
  const saved = await t.getSetting(DEMO_SETTING);
  if (saved) {
    const { api_key: _legacy, ...ids } = JSON.parse(saved) as TenantBundle;
    return { bundle: ids, api_key: null };
  }
  const { api_key, ...ids } = await createTenant(t, 'Demo', { brandColors: ['#1f3a5f', '#f2b134', '#f7f4ee'] });
  // first writer wins when two processes seed a new data dir at once; the other uses the stored ids
  const stored = JSON.parse(await t.ensureSetting(DEMO_SETTING, JSON.stringify(ids))) as DemoBundle;
  return { bundle: stored, api_key: stored.tenant_id === ids.tenant_id ? api_key : null };
}

/**
 * Create (once) the demo tenant with one workspace, theme, store and API key, and import the demo
 * photos through the same path users' imports take, with the alt text, tags and purpose of
 * `demo-metadata.json` (file-name words for files it does not list). Idempotent: later runs return the same ids
 * and re-import nothing new. The demo API key is returned only by the run that creates it (only its hash is
 * stored, like every key); `newKey` mints another key for the demo tenant and returns it.
 * @param extraSteps further seeding (catalog import) run after the images
 * @returns the ids, `api_key` (null unless created or minted by this run), and what was imported
 */
export async function seedDemo(
  app: App,
  opts: {
    imagesDir?: string;
    extraSteps?: SeedStep[];
    newKey?: boolean;
    onProgress?: (done: number, total: number, file: string) => void;
    /** called once the demo tenant, workspace and key exist, before the photos are stored (`api_key`: as returned below) */
    onTenant?: (bundle: DemoBundle, apiKey: string | null) => void;
  } = {},
): Promise<DemoBundle & { api_key: string | null; imported: number; skipped: number; failed: string[] }> {
  const t = app.library.tenancy;
  const { bundle, api_key } = await ensureDemoTenant(app);
  let apiKey = api_key;
  if (opts.newKey && !apiKey) apiKey = (await createApiKey(t, bundle.tenant_id, { name: 'demo' })).api_key;
  opts.onTenant?.(bundle, apiKey);
  const scope: Scope = { tenantId: bundle.tenant_id, workspaceId: bundle.workspace_id };
  const root = opts.imagesDir ?? DEMO_IMAGES_DIR;
  const files = fs.existsSync(root) ? listImageFiles(root) : [];
  let imported = 0;
  let skipped = 0;
  const failed: string[] = [];
  const curated = loadDemoMetadata(root);
  for (const [i, file] of files.entries()) {
    const meta: Partial<DemoMetadata> = curated.get(path.relative(root, file).split(path.sep).join('/')) ?? metadataFromPath(file, root);
    try {
      const { asset } = await storeAsset(app.library, scope, {
        bytes: fs.readFileSync(file),
        field: path.basename(file),
        source: 'seed',
        user: { filename: path.basename(file), alt_text: meta.alt_text, tags: meta.tags, purpose: meta.purpose },
        category: meta.category,
        subtype: meta.subtype,
      });
      if (asset.deduplicated) skipped++;
      else imported++;
    } catch (e) {
      failed.push(`${path.relative(root, file)}: ${(e as Error).message}`);
    }
    opts.onProgress?.(i + 1, files.length, file);
  }
  for (const step of [...DEFAULT_SEED_STEPS, ...(opts.extraSteps ?? [])]) await step(app, bundle, scope);
  return { ...bundle, api_key: apiKey, imported, skipped, failed };
}
