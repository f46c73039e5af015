import { describe, expect, it } from 'vitest';
import { ServiceError } from '../errors.ts';
import { createImagePool, IMAGE_PRIORITY } from './image-pool.ts';

/** A promise with its resolver, to hold a pool operation open. */
function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

describe('image pool', () => {
  it('admits up to the limit, then refuses with a retryable busy; a released slot admits again', async () => {
    // a lone tenant's limit is all but one slot: 2 of 3
    const pool = createImagePool({ concurrency: 1, maxActiveImports: 3 });
    const a = pool.admit('t1');
    const b = pool.admit('t1');
    expect(pool.stats().activeImports).toBe(2);
    let refused: unknown;
    try {
      pool.admit('t1');
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(ServiceError);
    const err = refused as ServiceError;
    expect(err.toPayload()).toMatchObject({ code: 'busy', field: null, details: { active_imports: 2 } });
    expect(err.details?.retry_after_ms).toBeGreaterThan(0);
    expect(err.message).toContain('nothing was imported');
    a.release();
    a.release(); // idempotent: the count does not go below what is really held
    expect(pool.stats().activeImports).toBe(1);
    const c = pool.admit('t1');
    expect(pool.stats().activeImports).toBe(2);
    b.release();
    c.release();
    expect(pool.stats().activeImports).toBe(0);
    await pool.close();
  });

  it('gives each tenant its fair share: all but one slot alone, an equal part with others; slots freed above it go to newcomers', async () => {
    const pool = createImagePool({ concurrency: 1, maxActiveImports: 4 });
    const a = [pool.admit('a'), pool.admit('a'), pool.admit('a')];
    expect(() => pool.admit('a')).toThrow(/fair share/); // alone: 3 of 4, one slot kept for another tenant
    const b = [pool.admit('b')]; // the slot kept free
    expect(() => pool.admit('c')).toThrow(/its limit/); // server full
    a[0]!.release();
    // 3 tenants want slots: ⌊4 / 3⌋ = 1 each; a and b, at or above it, are refused; the free slot is c's
    expect(() => pool.admit('a')).toThrow(/fair share/);
    expect(() => pool.admit('b')).toThrow(/fair share/);
    const c = pool.admit('c');
    expect(pool.stats().activeImports).toBe(4);
    for (const s of [a[1]!, a[2]!, ...b, c]) s.release();
    expect(pool.stats().activeImports).toBe(0);
    await pool.close();
  });

  it('runs at most `concurrency` bulk operations at once, imports before background; view has its own lane', async () => {
    const pool = createImagePool({ concurrency: 1, maxActiveImports: 8 });
    const hold = gate();
    const started: string[] = [];
    const first = pool.run(async () => {
      started.push('first');
      await hold.promise;
    }, IMAGE_PRIORITY.import);
    const queued = [
      pool.run(async () => void started.push('background'), IMAGE_PRIORITY.background),
      pool.run(async () => void started.push('import'), IMAGE_PRIORITY.import),
      pool.run(async () => void started.push('view'), IMAGE_PRIORITY.view),
    ];
    await queued[2]; // the view ran while the bulk lane was still held
    expect(started).toEqual(['first', 'view']);
    expect(pool.stats()).toMatchObject({ running: 1, waiting: 2 });
    hold.open();
    await Promise.all([first, ...queued]);
    expect(started).toEqual(['first', 'view', 'import', 'background']);
    expect(pool.stats()).toMatchObject({ running: 0, waiting: 0 });
    await pool.close();
  });

  it('decodes HEIC on its worker thread and reports undecodable bytes as an error', async () => {
    const pool = createImagePool({ concurrency: 1, maxActiveImports: 1 });
    await expect(pool.decodeHeic(Buffer.from('not a heic file at all'), IMAGE_PRIORITY.import)).rejects.toThrow();
    await pool.close();
  });
});
