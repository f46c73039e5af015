import { describe, expect, it } from 'vitest';
import type { CalibrationStore } from '../ports/calibration-store.ts';
import type { StoreFixture } from './fixture.ts';

/**
 * The behaviour every `CalibrationStore` must have: a model per (space, scope) read back exactly as
 * written (float64 center and spread), replaced by the next write, and seen by a second process.
 */
export function calibrationStoreContract(name: string, f: StoreFixture<CalibrationStore>): void {
  describe(`CalibrationStore contract: ${name}`, () => {
    it('stores one model per space and scope, exactly, replaced by the next write, seen by another process', async () => {
      const { store, open } = await f.create();
      expect(await store.get('asset_text:m:100', 'ws-a')).toBeNull();
      const model = { center: 0.12345678901234566, spread: 0.0987654321012345, items: 1234, pairs: 44850 };
      await store.put('asset_text:m:100', 'ws-a', model);
      await store.put('asset_text:m:100', 'ws-b', { center: -0.25, spread: 0.5, items: 3, pairs: 3 });
      await store.put('asset_visual:m:48', 'ws-a', { center: 0.7, spread: 0.01, items: 10, pairs: 45 });
      const other = await open();
      expect(await other.get('asset_text:m:100', 'ws-a')).toEqual(model);
      expect(await other.get('asset_text:m:100', 'ws-b')).toEqual({ center: -0.25, spread: 0.5, items: 3, pairs: 3 });
      expect(await other.get('asset_visual:m:48', 'ws-a')).toEqual({ center: 0.7, spread: 0.01, items: 10, pairs: 45 });
      expect(await other.get('asset_visual:m:48', 'ws-b')).toBeNull();

      const next = { center: -1e-300, spread: 1.5e-7, items: 2000, pairs: 44850 };
      await other.put('asset_text:m:100', 'ws-a', next);
      expect(await store.get('asset_text:m:100', 'ws-a')).toEqual(next);
    });
  });
}
