import type { CallToolResult } from '@modelcontextprotocol/client';
import { ErrorSchema } from '../../shared/schemas/error.ts';
import { ActionError } from './call-action.ts';

/** What went wrong, in the terms a person needs to decide what to do next. */
export type ErrorKind =
  | 'unreachable'
  | 'session'
  | 'timeout'
  | 'request'
  | 'not_found'
  | 'scope'
  | 'auth'
  | 'server'
  | 'outdated'
  /** the server or the key is at a limit that lifts by itself (concurrent work, calls per minute) */
  | 'busy'
  /** a limit that only the user can lift (storage quota, credits) */
  | 'limit'
  | 'other';

/** An error as a panel shows it: one sentence, the input at fault, whether Retry can help, and the raw text for "Details". */
export interface HumanError {
  kind: ErrorKind;
  /** one sentence a person can act on */
  message: string;
  /** the input at fault without the `args.` prefix (`theme_id`, `asset_ids[3]`); null when none */
  field: string | null;
  /** true when the same call can succeed later (server back, new session, transient failure) */
  retryable: boolean;
  /** what the server or host actually said */
  detail: string;
}

const UNREACHABLE =
  /fetch failed|failed to fetch|ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|socket hang up|networkerror|network error|connection closed|other side closed|terminated/i;
const SESSION = /unknown or expired session|session not found|expired session|invalid session|mcp-session-id/i;
const TIMEOUT = /timed? ?out|timeout|-32001/i;

const noArgs = (s: string): string => s.replace(/\bargs\./g, '').replace(/^args$/, 'arguments');
/** "theme_id: is required; limit: must be ≤ 50" → "theme_id is required; limit must be ≤ 50." (identifiers keep their case). */
const sentence = (s: string): string => {
  const raw = s.trim().replace(/\s+/g, ' ');
  const startsWithField = /^[\w.[\]]+: /.test(raw);
  const t = raw.replace(/(^|; )([\w.[\]]+): /g, '$1$2 ');
  if (!t) return t;
  return `${startsWithField ? t : `${t[0]!.toUpperCase()}${t.slice(1)}`}${/[.!?]$/.test(t) ? '' : '.'}`;
};

/** A transport failure (the host or server could not carry the call) by what its text says. */
function transport(detail: string): HumanError {
  if (SESSION.test(detail)) {
    return {
      kind: 'session',
      message: 'The connection to Atelier expired — the server restarted or the session timed out.',
      field: null,
      retryable: true,
      detail,
    };
  }
  if (UNREACHABLE.test(detail)) {
    return {
      kind: 'unreachable',
      message: 'Atelier can’t be reached — the server may have stopped or the network dropped.',
      field: null,
      retryable: true,
      detail,
    };
  }
  if (TIMEOUT.test(detail)) return { kind: 'timeout', message: 'Atelier took too long to answer.', field: null, retryable: true, detail };
  return { kind: 'other', message: 'The host could not pass this request to Atelier.', field: null, retryable: true, detail };
}

/**
 * Turn any failure a panel meets into a `HumanError`: an `ActionError` from `callAction` (structured
 * `{code, field, message}` of the server's closed code set, or `transport` when the host/server could
 * not be reached: "fetch failed", HTTP 404 "unknown or expired session" after a restart, timeouts), or
 * anything thrown. The server's `message` states the rule; it is kept, with `args.` prefixes dropped.
 */
export function humanizeError(e: unknown): HumanError {
  if (!(e instanceof ActionError)) {
    const detail = e instanceof Error ? e.message : String(e);
    return transport(detail);
  }
  const detail = `${e.code}${e.field ? ` (${e.field})` : ''}: ${e.message}`;
  const field = e.field ? noArgs(e.field) : null;
  // A rule that reads as the field's predicate ("is required; …") gets its subject back: "theme_id is required; …".
  const msg = noArgs(e.message).trim();
  const rule = sentence(field && /^(is|are|must|has|have|should|cannot|can't|needs?)\b/.test(msg) ? `${field}: ${msg}` : msg);
  switch (e.code) {
    case 'transport':
      return transport(e.message);
    case 'invalid_argument':
      return { kind: 'request', message: `The request can’t be run as asked: ${rule}`, field, retryable: false, detail };
    case 'not_found':
      return { kind: 'not_found', message: rule, field, retryable: false, detail };
    case 'ambiguous_scope':
      return { kind: 'scope', message: `Atelier needs to know which workspace or theme to use: ${rule}`, field, retryable: false, detail };
    case 'unauthenticated':
      return { kind: 'auth', message: `Atelier did not accept the API key: ${rule}`, field, retryable: false, detail };
    case 'internal':
      return { kind: 'server', message: 'Atelier hit an internal error while answering.', field, retryable: true, detail };
    case 'fetch_failed':
      return { kind: 'unreachable', message: `Atelier could not download that address: ${rule}`, field, retryable: true, detail };
    case 'provider_failed':
      return { kind: 'server', message: `An outside service Atelier depends on failed: ${rule}`, field, retryable: true, detail };
    case 'busy':
      return { kind: 'busy', message: `Atelier is busy with other work right now: ${rule}`, field, retryable: true, detail };
    case 'rate_limited':
      return { kind: 'busy', message: `Too many requests in the last minute: ${rule}`, field, retryable: true, detail };
    case 'quota_exceeded':
      return {
        kind: 'limit',
        message: `This library is full: ${rule} Delete assets you no longer need to make room.`,
        field,
        retryable: false,
        detail,
      };
    case 'budget_exceeded':
      return { kind: 'limit', message: `Not enough image credits: ${rule}`, field, retryable: false, detail };
    case 'unsupported':
    case 'conversion_failed':
    case 'conflict':
      return { kind: 'request', message: rule, field, retryable: false, detail };
    case 'bad_result':
    case 'unknown_action':
      return {
        kind: 'outdated',
        message: 'Atelier answered in a form this panel doesn’t understand — the panel may be out of date.',
        field,
        retryable: false,
        detail,
      };
    case 'error':
      // A tool result with text only: a protocol-level failure (e.g. the SDK's own validation) or a host message.
      return SESSION.test(e.message) || UNREACHABLE.test(e.message) || TIMEOUT.test(e.message)
        ? transport(e.message)
        : { kind: 'other', message: 'Atelier could not run this request.', field, retryable: true, detail: e.message };
    default:
      return { kind: 'other', message: rule, field, retryable: false, detail };
  }
}

/**
 * The error of a model-facing tool result the panel was opened with (`ui/notifications/tool-result`
 * with `isError`), as an `ActionError`: the structured `{code, field, message}` when present, else the
 * text. Null when the result is not an error.
 */
export function toolResultError(result: CallToolResult | null | undefined): ActionError | null {
  if (!result?.isError) return null;
  const parsed = ErrorSchema.safeParse((result.structuredContent as { error?: unknown } | undefined)?.error);
  if (parsed.success) return new ActionError(parsed.data.code, parsed.data.field ?? null, parsed.data.message);
  const text = result.content?.find((c) => c.type === 'text');
  const raw = text && 'text' in text ? text.text : 'the tool call failed';
  // Some servers put the structured error JSON in the text only.
  try {
    const j = ErrorSchema.safeParse((JSON.parse(raw) as { error?: unknown }).error);
    if (j.success) return new ActionError(j.data.code, j.data.field ?? null, j.data.message);
  } catch {
    /* plain text */
  }
  return new ActionError('error', null, raw);
}
