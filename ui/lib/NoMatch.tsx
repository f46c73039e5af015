import type { App } from '@modelcontextprotocol/ext-apps';
import { AskAssistant } from './AskAssistant.tsx';

/** The user message asking for a new image when nothing matched (the spec's decision order: no match → generate or import). */
export function noMatchRequestText(query: string | null): string {
  const what = query ? `matches “${query}”` : 'matches these filters';
  return `Nothing in my asset library ${what}. Please generate an image for it (svc_drafts asset_generate) or import one from a link (svc_asset_import), or open the upload panel (svc_asset_upload upload) so I can add my own.`;
}

/**
 * "No match for “…”" in plain words with the next step of the decision order (spec §1: no match →
 * generate or import; or the user uploads), and a button that asks the assistant for it through
 * `ui/message` (hosts without it get the advice as text). Nearby non-matches are shown apart
 * (`Suggestions`), never here.
 * @param query the query that matched nothing (null: only filters were applied)
 * @param tryHint an extra line for panels where the user can search again ("Try other words …")
 */
export function NoMatch({
  app,
  query,
  tryHint,
  testId = 'no-match',
}: {
  app: App | null;
  query: string | null;
  tryHint?: string | undefined;
  testId?: string;
}) {
  return (
    <section className="notice no-match" data-testid={testId} aria-labelledby={`${testId}-title`}>
      <h2 id={`${testId}-title`} className="notice-title">
        {query ? `No match for “${query}”` : 'Nothing matches these filters'}
      </h2>
      <p className="notice-hint">
        Nothing in your library matches {query ? 'these words' : 'them'}. Next step: the assistant can generate an image or import one from
        a link, or you can upload your own.
        {tryHint ? ` ${tryHint}` : ''}
      </p>
      <AskAssistant
        app={app}
        text={noMatchRequestText(query)}
        label="Ask the assistant for a new image"
        done="Asked the assistant to generate, import or upload an image."
        fallback="Ask the assistant to generate or import one, or to “open the upload panel”."
        testIdPrefix="ask"
      />
    </section>
  );
}
