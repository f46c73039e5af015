import type { SelectedAsset } from '../../shared/schemas/panel.ts';

/** What reached the assistant after a confirmed choice. */
export interface Handoff {
  /** `ui/message`: sent; the host offers no message capability; the host refused or failed; unknown (restored after a remount) */
  message: 'sent' | 'not_offered' | 'refused' | 'unknown';
  /** `ui/update-model-context` was accepted (the assistant sees the choice on its next turn) */
  context: boolean;
}

type Chosen = Pick<SelectedAsset, 'id' | 'name' | 'original_url'>;
const plural = (n: number): string => `${n} asset${n === 1 ? '' : 's'}`;

/**
 * The picker after "Use selected": the ordered choice and what actually happened to it. "Sent" only
 * when the host accepted the `ui/message`; otherwise the choice is saved on the server (picker id, read
 * with `get_selection`) and the user is told to tell the assistant.
 */
export function Confirmed({
  chosen,
  handoff,
  pickerId,
  announce,
}: {
  chosen: Chosen[];
  handoff: Handoff;
  pickerId: string;
  announce: string;
}) {
  const sent = handoff.message === 'sent';
  const title = sent ? 'Selection sent' : handoff.message === 'unknown' ? 'Selection confirmed' : 'Selection saved';
  return (
    <main className="panel" data-testid="confirmed" data-handoff={handoff.message}>
      <h1 className="confirmed-title">{title}</h1>
      <p className="muted" data-testid="confirmed-summary">
        {sent
          ? `The assistant received your ${plural(chosen.length)}, in this order:`
          : handoff.message === 'unknown'
            ? `You confirmed ${plural(chosen.length)}, in this order:`
            : `Your choice of ${plural(chosen.length)} is saved, in this order:`}
      </p>
      <ol className="chosen" data-testid="confirmed-list">
        {chosen.map((a) => (
          <li key={a.id}>{a.name}</li>
        ))}
      </ol>
      {(handoff.message === 'not_offered' || handoff.message === 'refused') && (
        <div className="notice" role="status" data-testid="handoff-note">
          <p className="notice-title">The assistant has not been told yet.</p>
          <p className="notice-hint">
            {handoff.message === 'not_offered' ? 'This host does not let panels send messages.' : 'The host did not deliver the message.'}{' '}
            Tell the assistant you are done: it reads your choice from picker <code>{pickerId}</code>
            {handoff.context ? ', and it will also see it with your next message.' : '.'}
          </p>
        </div>
      )}
      <div role="status" aria-live="polite" className="sr-only" data-testid="live">
        {announce}
      </div>
    </main>
  );
}
