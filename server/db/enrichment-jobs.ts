import type { Database } from 'better-sqlite3';
import type { Scope } from '../domain/scope.ts';
import type { AssetRow } from './assets.ts';

export type JobKind = 'analyze' | 'embed_text';

/** One row of `enrichment_jobs`. */
export interface JobRow {
  id: number;
  asset_seq: number;
  kind: JobKind;
  state: 'queued' | 'running' | 'done' | 'failed';
  attempts: number;
  /** 1 when the job was asked to run again while running */
  rerun: number;
  run_after: number;
  last_error: string | null;
}

/** Machine-derived facts of one asset (`asset_enrichment`). */
export interface EnrichmentRow {
  asset_seq: number;
  colors: string;
  orientation: 'landscape' | 'portrait' | 'square' | null;
  ocr_confidence: number | null;
  machine_alt_text: string | null;
  text_model_id: string | null;
  visual_model_id: string | null;
  caption: string | null;
  caption_model_id: string | null;
}

/** What the analyze job writes; user-authored fields are protected by the SQL itself. */
export interface AnalysisWrite {
  colorsJson: string;
  orientation: EnrichmentRow['orientation'];
  ocrText: string | null;
  ocrConfidence: number | null;
  autoTags: string[];
  machineAltText: string | null;
  caption: string | null;
  captionModelId: string | null;
}

/**
 * The durable enrichment queue and the enrichment columns of `assets`. Writes never touch
 * user-authored metadata: `alt_text` is only set when `user_fields` does not list it.
 */
export function createEnrichmentQueries(db: Database) {
  const now = () => new Date().toISOString();
  const s = {
    enqueue: db.prepare(
      `INSERT INTO enrichment_jobs (asset_seq, kind, state, attempts, run_after, created_at, updated_at)
       VALUES (?, ?, 'queued', 0, ?, ?, ?)
       ON CONFLICT (asset_seq, kind) DO UPDATE SET
         state = CASE WHEN enrichment_jobs.state = 'running' THEN 'running' ELSE 'queued' END,
         rerun = CASE WHEN enrichment_jobs.state = 'running' THEN 1 ELSE 0 END,
         attempts = CASE WHEN enrichment_jobs.state = 'running' THEN enrichment_jobs.attempts ELSE 0 END,
         run_after = CASE WHEN enrichment_jobs.state = 'running' THEN enrichment_jobs.run_after ELSE excluded.run_after END,
         last_error = CASE WHEN enrichment_jobs.state = 'running' THEN enrichment_jobs.last_error ELSE NULL END,
         updated_at = excluded.updated_at`,
    ),
    due: db.prepare(`SELECT * FROM enrichment_jobs WHERE state = 'queued' AND run_after <= ? ORDER BY run_after, id LIMIT ?`),
    nextDue: db.prepare(`SELECT min(run_after) AS t FROM enrichment_jobs WHERE state = 'queued'`),
    claim: db.prepare(
      `UPDATE enrichment_jobs SET state = 'running', attempts = attempts + 1, lease_owner = ?, lease_until = ?, updated_at = ? WHERE id = ? AND state = 'queued'`,
    ),
    renew: db.prepare(`UPDATE enrichment_jobs SET lease_until = ? WHERE id = ? AND state = 'running' AND lease_owner = ?`),
    // A job flagged for a re-run goes back to the queue at once with fresh attempts, whatever this run's outcome.
    finish: db.prepare(
      `UPDATE enrichment_jobs SET
         state = CASE WHEN rerun = 1 THEN 'queued' ELSE @state END,
         last_error = @error,
         attempts = CASE WHEN rerun = 1 THEN 0 ELSE attempts END,
         run_after = CASE WHEN rerun = 1 THEN @now_ms ELSE @run_after END,
         rerun = 0, lease_owner = NULL, lease_until = NULL, updated_at = @now
       WHERE id = @id AND state = 'running' AND lease_owner = @owner`,
    ),
    rerunPending: db.prepare(`SELECT rerun FROM enrichment_jobs WHERE id = ?`),
    requeueExpired: db.prepare(
      `UPDATE enrichment_jobs SET state = 'queued', rerun = 0, lease_owner = NULL, lease_until = NULL, updated_at = ? WHERE state = 'running' AND coalesce(lease_until, 0) < ?`,
    ),
    requeueFailed: db.prepare(
      `UPDATE enrichment_jobs SET state = 'queued', attempts = 0, run_after = ?, updated_at = ? WHERE state = 'failed'`,
    ),
    pendingOf: db.prepare(`SELECT count(*) AS n FROM enrichment_jobs WHERE asset_seq = ? AND state IN ('queued', 'running')`),
    failedOf: db.prepare(`SELECT count(*) AS n FROM enrichment_jobs WHERE asset_seq = ? AND state = 'failed'`),
    pendingKind: db.prepare(`SELECT count(*) AS n FROM enrichment_jobs WHERE kind = ? AND state IN ('queued', 'running')`),
    counts: db.prepare(
      `SELECT a.enrichment_status AS status, count(*) AS n FROM assets a WHERE a.tenant_id = ? AND a.workspace_id = ? GROUP BY a.enrichment_status`,
    ),
    setStatus: db.prepare(`UPDATE assets SET enrichment_status = ? WHERE seq = ?`),
    allAnalyzed: db.prepare(`SELECT e.asset_seq AS seq FROM asset_enrichment e JOIN assets a ON a.seq = e.asset_seq`),
    allSeqs: db.prepare(`SELECT seq FROM assets WHERE kind <> 'video'`),
    facts: db.prepare(`SELECT * FROM asset_enrichment WHERE asset_seq = ?`),
    upsertFacts: db.prepare(
      `INSERT INTO asset_enrichment (asset_seq, colors, orientation, ocr_confidence, machine_alt_text, caption, caption_model_id, updated_at)
       VALUES (@seq, @colors, @orientation, @ocr_confidence, @machine_alt_text, @caption, @caption_model_id, @now)
       ON CONFLICT (asset_seq) DO UPDATE SET colors = excluded.colors, orientation = excluded.orientation,
         ocr_confidence = excluded.ocr_confidence, machine_alt_text = excluded.machine_alt_text,
         caption = excluded.caption, caption_model_id = excluded.caption_model_id, updated_at = excluded.updated_at`,
    ),
    writeAsset: db.prepare(
      `UPDATE assets SET
         ocr_text = @ocr_text,
         auto_tags = @auto_tags,
         alt_text = CASE WHEN EXISTS (SELECT 1 FROM json_each(assets.user_fields) WHERE value = 'alt_text') THEN assets.alt_text ELSE @machine_alt_text END
       WHERE seq = @seq`,
    ),
    setModel: db.prepare(`UPDATE asset_enrichment SET text_model_id = ?, updated_at = ? WHERE asset_seq = ?`),
    setVisualModel: db.prepare(`UPDATE asset_enrichment SET visual_model_id = ?, updated_at = ? WHERE asset_seq = ?`),
  };

  return {
    /** Queue (or re-queue) a job; a job already running is flagged to run again once it settles. */
    enqueue(seq: number, kind: JobKind, runAfterMs = Date.now()): void {
      s.enqueue.run(seq, kind, runAfterMs, now(), now());
    },
    /** Queue a job for many assets in one transaction. */
    enqueueMany(seqs: number[], kind: JobKind): void {
      const t = Date.now();
      db.transaction(() => {
        for (const q of seqs) s.enqueue.run(q, kind, t, now(), now());
      }).immediate();
    },
    /** Due jobs, oldest first. */
    due: (nowMs: number, limit: number) => s.due.all(nowMs, limit) as JobRow[],
    /** Epoch ms of the next queued job, or null. */
    nextDueAt: () => (s.nextDue.get() as { t: number | null }).t,
    /** Mark a queued job running under `owner`'s lease until `leaseUntilMs`; false when another runner took it. */
    claim: (id: number, owner: string, leaseUntilMs: number) => s.claim.run(owner, leaseUntilMs, now(), id).changes === 1,
    /** Extend the lease of a job `owner` is running; false when the job is no longer its own. */
    renew: (id: number, owner: string, leaseUntilMs: number) => s.renew.run(leaseUntilMs, id, owner).changes === 1,
    /**
     * Settle a job `owner` runs; a job flagged for a re-run (see `enqueue`) goes back to the queue instead.
     * @returns 'settled' or 'requeued' (re-run requested meanwhile), or false (nothing written) when its lease was lost to another runner
     */
    finish(
      id: number,
      owner: string,
      state: 'done' | 'failed' | 'queued',
      error: string | null,
      runAfterMs: number,
    ): 'settled' | 'requeued' | false {
      return db
        .transaction(() => {
          const rerun = (s.rerunPending.get(id) as { rerun: number } | undefined)?.rerun === 1;
          const changed = s.finish.run({ state, error, run_after: runAfterMs, now_ms: Date.now(), now: now(), id, owner }).changes === 1;
          return changed ? (rerun ? 'requeued' : 'settled') : false;
        })
        .immediate();
    },
    /** Crash recovery: jobs whose lease ran out (their process died) go back to the queue. @returns how many */
    requeueExpired: (nowMs = Date.now()) => s.requeueExpired.run(now(), nowMs).changes,
    /** At start: give permanently failed jobs one more round (the cause, e.g. an embedder outage, may be gone). */
    requeueFailed: () => s.requeueFailed.run(Date.now(), now()).changes,
    pendingOf: (seq: number) => (s.pendingOf.get(seq) as { n: number }).n,
    failedOf: (seq: number) => (s.failedOf.get(seq) as { n: number }).n,
    pendingKind: (kind: JobKind) => (s.pendingKind.get(kind) as { n: number }).n,
    setAssetStatus: (seq: number, status: AssetRow['enrichment_status']) => void s.setStatus.run(status, seq),
    /** Count of assets per enrichment status in a workspace. */
    statusCounts(scope: Scope): Record<string, number> {
      const rows = s.counts.all(scope.tenantId, scope.workspaceId) as { status: string; n: number }[];
      return Object.fromEntries(rows.map((r) => [r.status, r.n]));
    },
    analyzedSeqs: () => (s.allAnalyzed.all() as { seq: number }[]).map((r) => r.seq),
    imageSeqs: () => (s.allSeqs.all() as { seq: number }[]).map((r) => r.seq),
    facts: (seq: number) => s.facts.get(seq) as EnrichmentRow | undefined,
    /** Store an analysis: facts row plus OCR text, auto tags and (unless user-authored) alt text. */
    writeAnalysis(seq: number, a: AnalysisWrite): void {
      db.transaction(() => {
        s.upsertFacts.run({
          seq,
          colors: a.colorsJson,
          orientation: a.orientation,
          ocr_confidence: a.ocrConfidence,
          machine_alt_text: a.machineAltText,
          caption: a.caption,
          caption_model_id: a.captionModelId,
          now: now(),
        });
        s.writeAsset.run({ seq, ocr_text: a.ocrText, auto_tags: JSON.stringify(a.autoTags), machine_alt_text: a.machineAltText });
      }).immediate();
    },
    setTextModel: (seq: number, modelId: string | null) => void s.setModel.run(modelId, now(), seq),
    setVisualModel: (seq: number, modelId: string | null) => void s.setVisualModel.run(modelId, now(), seq),
  };
}
export type EnrichmentQueries = ReturnType<typeof createEnrichmentQueries>;
