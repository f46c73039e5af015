import type { App } from '@modelcontextprotocol/ext-apps';
import { useState } from 'react';

/**
 * A button that asks the assistant for something through `ui/message` (a panel cannot open another
 * panel, generate or import by itself), with the outcome said as it is: "Asked the assistant …" only
 * when the host accepted the message. Hosts without `ui/message`, or that refuse it, get `fallback`
 * as text instead. Test ids: `<testIdPrefix>-action`, `-requested`, `-hint`.
 * @param text the user message sent to the assistant
 * @param label the button's text; @param done the status line once the host accepted the message
 */
export function AskAssistant({
  app,
  text,
  label,
  done,
  fallback,
  testIdPrefix,
}: {
  app: App | null;
  text: string;
  label: string;
  done: string;
  fallback: string;
  testIdPrefix: string;
}) {
  const [state, setState] = useState<'idle' | 'sending' | 'sent' | 'failed'>('idle');
  const canMessage = Boolean(app?.getHostCapabilities()?.message);
  async function ask(): Promise<void> {
    if (!app) return;
    setState('sending');
    try {
      const r = await app.sendMessage({ role: 'user', content: [{ type: 'text', text }] }, { timeout: 10_000 });
      setState(r.isError ? 'failed' : 'sent');
    } catch {
      setState('failed');
    }
  }
  return (
    <>
      {canMessage && state !== 'sent' && (
        <button
          type="button"
          className="primary"
          onClick={() => void ask()}
          disabled={state === 'sending'}
          data-testid={`${testIdPrefix}-action`}
        >
          {state === 'sending' ? 'Asking the assistant…' : label}
        </button>
      )}
      {state === 'sent' && (
        <p role="status" data-testid={`${testIdPrefix}-requested`}>
          {done}
        </p>
      )}
      {(!canMessage || state === 'failed') && (
        <p className="notice-hint" data-testid={`${testIdPrefix}-hint`}>
          {state === 'failed' ? 'The host did not pass the request on. ' : ''}
          {fallback}
        </p>
      )}
    </>
  );
}
