import { describe, expect, it } from 'vitest';
import { ErrorCodeSchema } from '../../shared/schemas/error.ts';
import { ActionError } from './call-action.ts';
import { humanizeError } from './human-error.ts';

describe('humanizeError', () => {
  it('tells a person to wait and retry when the server or the key is at a passing limit', () => {
    for (const code of ['busy', 'rate_limited'] as const) {
      const h = humanizeError(new ActionError(code, null, 'retry in 12 s'));
      expect(h).toMatchObject({ kind: 'busy', retryable: true });
      expect(h.message).toMatch(/retry in 12 s\.$/i);
    }
  });

  it('says a full library or an empty credit budget is not cured by retrying', () => {
    const q = humanizeError(new ActionError('quota_exceeded', 'args.data', 'the tenant uses 9.9 GB of its 10 GB quota'));
    expect(q).toMatchObject({ kind: 'limit', retryable: false, field: 'data' });
    expect(q.message).toContain('Delete assets');
    expect(humanizeError(new ActionError('budget_exceeded', null, 'needs 4 credits, 1 left'))).toMatchObject({
      kind: 'limit',
      retryable: false,
    });
  });

  it('gives every server error code a kind of its own rather than the catch-all', () => {
    for (const code of ErrorCodeSchema.options) expect(humanizeError(new ActionError(code, null, 'x')).kind).not.toBe('other');
  });
});
