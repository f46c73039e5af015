import { randomUUID } from 'node:crypto';
import type { UploadStore } from '../db/ports/upload-store.ts';
import { ServiceError } from '../errors.ts';

/** The completion lease of one upload, held by this `complete` call. */
export interface CompletionHold {
  /** the lease owner (one per call) */
  owner: string;
  /**
   * Throw `conflict` when the lease was lost (this process stalled past it and another process aborted
   * the upload or took the completion over): called before each write of the completion.
   */
  check(): void;
  /** Stop renewing and give the lease up (a no-op once a final status released it). */
  release(): Promise<void>;
}

const lostError = (): ServiceError =>
  new ServiceError(
    'conflict',
    'args.upload_id',
    'this completion stalled past its lease and another process aborted or took over the upload; ask status',
  );

/**
 * Take the completion lease of upload `id` (`UploadStore.claimCompletion`: a conditional UPDATE of the
 * row, timed by the database's clock). While another call holds a live lease, wait for it — polling
 * every `pollMs` for at most `waitMs` — so a second `complete` (another process, or the same one)
 * answers with the result of the first, and a retry after a crash takes over once the dead process's
 * lease lapsed (it stopped renewing: at most `leaseMs` later). The lease is renewed every third of
 * `leaseMs` until `release`.
 * @param exists re-reads the session between attempts: false when it is failed, aborted or gone (then null is returned)
 * @returns the hold, or null when the session left the states a completion starts from
 * @throws ServiceError conflict when another completion still holds the upload after `waitMs`
 */
export async function holdCompletion(
  uploads: UploadStore,
  id: string,
  opts: { leaseMs: number; waitMs: number; pollMs?: number; exists: () => Promise<boolean> },
): Promise<CompletionHold | null> {
  const owner = randomUUID();
  const until = Date.now() + opts.waitMs; // a local wait bound only: the lease itself is the database's
  while (!(await uploads.claimCompletion(id, owner, opts.leaseMs))) {
    if (!(await opts.exists())) return null;
    if (Date.now() > until)
      throw new ServiceError('conflict', 'args.upload_id', 'upload is being completed by another call; ask status in a moment');
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 200));
  }
  let lost = false;
  const renew = setInterval(
    () =>
      void uploads.renewCompletion(id, owner, opts.leaseMs).then(
        (own) => void (own || (lost = true)),
        () => undefined, // a failed renewal is retried at the next tick; a lapse shows as lost there
      ),
    Math.max(10, Math.floor(opts.leaseMs / 3)),
  );
  renew.unref();
  return {
    owner,
    check() {
      if (lost) throw lostError();
    },
    async release() {
      clearInterval(renew);
      await uploads.releaseCompletion(id, owner);
    },
  };
}
