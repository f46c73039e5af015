import { describe, expect, it } from 'vitest';
import { findAction } from '../../shared/actions.ts';
import { pickerActions } from '../asset-picker/actions.ts';
import { searchActions } from '../search-results/actions.ts';
import { uploadActions } from '../upload/actions.ts';

/**
 * The panels bundle only the result schemas they use (ui/<panel>/actions.ts) instead of the whole
 * registry; each must be the registry's own schema object, so panel and server parse the same thing.
 */
describe('panel action clients', () => {
  for (const [panel, client] of Object.entries({ search: searchActions, picker: pickerActions, upload: uploadActions })) {
    it(`${panel}: every result schema is the registry's schema for that action`, () => {
      const entries = Object.entries(client.schemas as Record<string, Record<string, unknown>>).flatMap(([router, actions]) =>
        Object.entries(actions).map(([action, schema]) => ({ router, action, schema })),
      );
      expect(entries.length).toBeGreaterThan(0);
      for (const { router, action, schema } of entries) {
        const def = findAction(router, action);
        expect(def, `${router}.${action} is in the registry`).toBeDefined();
        expect(schema === def!.result, `${router}.${action} uses the registry's result schema`).toBe(true);
      }
    });
  }
});
