import { useState } from 'react';
import type { HumanError } from './human-error.ts';

/**
 * An error as a person reads it: one sentence, the field at fault, what to do next, a Retry when
 * trying again can help (server back, new session, transient failure), and the raw text under
 * "Details" for whoever debugs it. `onRetry` may return a promise; the button shows "Retrying…" meanwhile.
 */
export function ErrorNotice({
  error,
  onRetry,
  hint,
  testId = 'error',
}: {
  error: HumanError;
  onRetry?: (() => unknown) | undefined;
  hint?: string | undefined;
  testId?: string;
}) {
  const [busy, setBusy] = useState(false);
  const retry = async (): Promise<void> => {
    if (!onRetry || busy) return;
    setBusy(true);
    try {
      await onRetry();
    } finally {
      setBusy(false);
    }
  };
  const next =
    hint ??
    (error.kind === 'unreachable'
      ? 'Check that the Atelier server is running, then retry.'
      : error.kind === 'session'
        ? 'Retry to continue with a new connection.'
        : error.retryable
          ? 'Trying again may work.'
          : null);
  return (
    <div className="notice notice-error" role="alert" data-testid={testId} data-kind={error.kind}>
      <p className="notice-title">{error.message}</p>
      {error.field && (
        <p className="notice-field">
          Field: <code data-testid={`${testId}-field`}>{error.field}</code>
        </p>
      )}
      {next && <p className="notice-hint">{next}</p>}
      <div className="notice-actions">
        {onRetry && error.retryable && (
          <button type="button" onClick={() => void retry()} disabled={busy} data-testid="retry">
            {busy ? 'Retrying…' : 'Retry'}
          </button>
        )}
        <details className="notice-details">
          <summary>Details</summary>
          <code>{error.detail}</code>
        </details>
      </div>
    </div>
  );
}
