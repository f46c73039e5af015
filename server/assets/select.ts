import { randomUUID } from 'node:crypto';
import type { Asset, AssetPage, SearchArgs } from '../../shared/schemas/asset.ts';
import type { SelectedAsset, SelectionState, SelectResult } from '../../shared/schemas/panel.ts';
import type { PickerDelivery, PickerRow, PickerStore } from '../db/ports/picker-store.ts';
import type { Scope } from '../domain/scope.ts';
import { ServiceError } from '../errors.ts';
import type { LibraryDeps } from './deps.ts';
import { assetUrls } from './present.ts';
import { searchAssets, type AssetVectorSearch } from './search.ts';

/** What the picker use cases need. */
export interface PickerDeps {
  library: LibraryDeps;
  pickers: PickerStore;
  /** a picker not confirmed within this many ms expires (default 24 h) */
  ttlMs?: number;
}

const DEFAULT_PICKER_TTL_MS = 24 * 3600 * 1000;

/** Expire pickers older than the TTL that still await the user (cheap: indexed on status, created_at). */
async function expireStale(deps: PickerDeps): Promise<void> {
  await deps.pickers.expireBefore(new Date(Date.now() - (deps.ttlMs ?? DEFAULT_PICKER_TTL_MS)).toISOString());
}

/** The user's answer to an elicitation: accepted ids in the order given, or declined/cancelled. */
export type ElicitAnswer = { action: 'accept'; assetIds: string[] } | { action: 'decline' | 'cancel' };

/** How `select` reaches the user: an MCP Apps panel, a form elicitation (with the asking function), or plain text. */
export type PickerChannel =
  { delivery: 'panel' } | { delivery: 'text' } | { delivery: 'elicitation'; ask(candidates: SelectedAsset[]): Promise<ElicitAnswer> };

function toSelected(a: Asset, position: number): SelectedAsset {
  return { position, id: a.id, name: a.name, original_url: a.original_url, url: a.url, width: a.width, height: a.height };
}

/** Resolve stored ids to selected assets in order; ids no longer in the workspace are dropped. */
async function hydrate(deps: PickerDeps, scope: Scope, ids: string[]): Promise<SelectedAsset[]> {
  const out: SelectedAsset[] = [];
  for (const id of ids) {
    const row = await deps.library.assets.byId(scope, id);
    if (!row) continue;
    const u = assetUrls(row, await deps.library.assets.renditions(row.seq), deps.library.urls);
    out.push({
      position: out.length + 1,
      id: row.id,
      name: row.name,
      original_url: u.original,
      url: u.original,
      width: row.width,
      height: row.height,
    });
  }
  return out;
}

async function stateOf(deps: PickerDeps, scope: Scope, p: PickerRow): Promise<SelectionState> {
  return {
    picker_id: p.id,
    status: p.status,
    selection: await hydrate(deps, scope, p.selection),
    confirmed_at: p.confirmedAt,
    workspace_id: p.workspaceId,
  };
}

/** The paging fields of a select result, with the search's index state while enrichment runs. */
function pagingOf(page: AssetPage): OpenPicker['paging'] {
  const { indexing } = page.request;
  return { total: page.total, has_more: page.has_more, next_cursor: page.next_cursor, ...(indexing ? { indexing } : {}) };
}

/** A picker stored `awaiting_user` whose candidates a form elicitation offers to the user. */
export interface OpenPicker {
  id: string;
  candidates: SelectedAsset[];
  paging: Pick<SelectResult, 'total' | 'has_more' | 'next_cursor' | 'indexing'>;
}

/**
 * Run the search of a `select` and persist its picker. Panel and text deliveries (and an empty result) are
 * final; an elicitation picker is left `awaiting_user` with the candidates to offer (`open`).
 */
export async function openPicker(
  deps: PickerDeps,
  scope: Scope,
  args: SearchArgs,
  themeId: string,
  vectors: AssetVectorSearch | null,
  delivery: PickerDelivery,
): Promise<{ final: SelectResult } | { open: OpenPicker }> {
  await expireStale(deps);
  const page: AssetPage = await searchAssets(deps.library, scope, args, { themeId }, vectors);
  const candidates = page.assets.map((a, i) => toSelected(a, i + 1));
  const paging = pagingOf(page);
  const id = randomUUID();
  const now = new Date().toISOString();
  const request = { ...args, theme_id: themeId };
  if (delivery === 'panel' || delivery === 'text' || candidates.length === 0) {
    const status = delivery === 'panel' ? 'awaiting_user' : 'candidates';
    await deps.pickers.insert({ id, themeId, delivery, status, request, selection: [], createdAt: now, confirmedAt: null }, scope);
    const final: SelectResult = {
      picker_id: id,
      status,
      delivery,
      selection: [],
      candidates: delivery === 'panel' ? [] : candidates,
      ...paging,
      page: delivery === 'panel' ? page : null,
    };
    return { final };
  }
  await deps.pickers.insert(
    { id, themeId, delivery, status: 'awaiting_user', request, selection: [], createdAt: now, confirmedAt: null },
    scope,
  );
  return { open: { id, candidates, paging } };
}

/**
 * An elicitation picker of an earlier round of the same `select` (2026-07-28 `requestState`), with its
 * candidates searched again from the stored request: the state a retry needs is all in the database, so any
 * process answers it. The picker id comes from the client: only a picker of the caller's workspace that
 * still awaits an elicited answer is taken.
 * @throws ServiceError not_found (picker_id) | conflict (picker_id: already answered or expired)
 */
export async function reopenPicker(
  deps: PickerDeps,
  scope: Scope,
  pickerId: string,
  vectors: AssetVectorSearch | null,
): Promise<OpenPicker> {
  await expireStale(deps);
  const p = await deps.pickers.byId(scope, pickerId.toLowerCase());
  if (!p || p.delivery !== 'elicitation')
    throw new ServiceError('not_found', 'picker_id', `picker ${pickerId} is not an elicitation picker of workspace ${scope.workspaceId}`);
  if (p.status !== 'awaiting_user')
    throw new ServiceError('conflict', 'picker_id', `picker ${p.id} is already ${p.status}; open a new picker with select`, {
      details: { status: p.status },
    });
  const page = await searchAssets(deps.library, scope, p.request as SearchArgs, { themeId: p.themeId }, vectors);
  return {
    id: p.id,
    candidates: page.assets.map((a, i) => toSelected(a, i + 1)),
    paging: pagingOf(page),
  };
}

/** Store the user's answer to an elicitation picker and build the `select` result (ids not offered are dropped). */
export async function answerPicker(deps: PickerDeps, scope: Scope, open: OpenPicker, answer: ElicitAnswer): Promise<SelectResult> {
  const { id, candidates, paging } = open;
  const delivery: PickerDelivery = 'elicitation';
  if (answer.action !== 'accept') {
    const status = answer.action === 'decline' ? 'declined' : 'cancelled';
    await deps.pickers.finish(scope, id, status, [], new Date().toISOString());
    return { picker_id: id, status, delivery, selection: [], candidates, ...paging, page: null };
  }
  const offered = new Set(candidates.map((c) => c.id));
  const ids = answer.assetIds.filter((a, i, all) => offered.has(a) && all.indexOf(a) === i);
  await deps.pickers.finish(scope, id, ids.length ? 'confirmed' : 'declined', ids, new Date().toISOString());
  const selection = await hydrate(deps, scope, ids);
  return { picker_id: id, status: ids.length ? 'confirmed' : 'declined', delivery, selection, candidates, ...paging, page: null };
}

/**
 * `svc_asset_select` `select` (spec §4.2): run the search, persist a picker, and deliver it.
 * - panel: the picker stays `awaiting_user`; the MCP Apps panel confirms through `submitSelection`.
 * - elicitation: the client's form shows the best matches; the answer is stored and returned. When the
 *   elicitation fails (the client's handler errors, or its answer does not fit the form) the picker is
 *   closed as `candidates` and the ranked list is returned as for text.
 * - text: the ranked candidates are returned for the agent to present (status `candidates`).
 * Candidates are one search page: up to `limit` (≤ 50) with `total`, `has_more` and `next_cursor`.
 * @throws ServiceError from `searchAssets` (invalid cursor, unknown similar_to_asset_id, unsupported mode)
 */
export async function selectAssets(
  deps: PickerDeps,
  scope: Scope,
  args: SearchArgs,
  themeId: string,
  vectors: AssetVectorSearch | null,
  channel: PickerChannel,
  signal?: AbortSignal,
): Promise<SelectResult> {
  const opened = await openPicker(deps, scope, args, themeId, vectors, channel.delivery);
  if ('final' in opened) return opened.final;
  const { id, candidates, paging } = opened.open;
  if (channel.delivery !== 'elicitation') throw new Error('unreachable: only elicitation pickers stay open');
  let answer: ElicitAnswer;
  try {
    answer = await channel.ask(candidates);
  } catch (e) {
    if (signal?.aborted) {
      // the caller cancelled the request: nobody reads a result, the picker is closed
      await deps.pickers.finish(scope, id, 'cancelled', [], new Date().toISOString());
      throw e;
    }
    // The client could not ask the user (its handler failed or its answer did not fit the form): close the
    // picker with the candidate list, which the agent presents instead.
    deps.library.log.warn(
      { mod: 'select', picker_id: id, err: e instanceof Error ? e.message : String(e) },
      'elicitation failed: answering with the candidate list',
    );
    await deps.pickers.finish(scope, id, 'candidates', [], new Date().toISOString());
    return { picker_id: id, status: 'candidates', delivery: 'elicitation', selection: [], candidates, ...paging, page: null };
  }
  return answerPicker(deps, scope, opened.open, answer);
}

/**
 * `svc_asset_select` `get_selection`: the picker's state; a picker of another workspace is `not_found`.
 * @throws ServiceError not_found (args.picker_id)
 */
export async function getSelection(deps: PickerDeps, scope: Scope, pickerId: string): Promise<SelectionState> {
  await expireStale(deps);
  const p = await deps.pickers.byId(scope, pickerId);
  if (!p) throw new ServiceError('not_found', 'args.picker_id', `picker ${pickerId} does not exist in workspace ${scope.workspaceId}`);
  return stateOf(deps, scope, p);
}

/**
 * `svc_asset_panel` `submit_selection` (app-only): confirm a panel picker's choice in selection order.
 * Every id must be an asset of the picker's workspace (scope is re-derived from the caller's key, never
 * taken from the panel). Idempotent: the same ids again return the stored state; different ids after
 * confirmation are a `conflict`. A picker answered with a candidate list (`candidates`: the client did
 * not declare MCP Apps) can be confirmed too: a host may render the panel anyway.
 * @throws ServiceError not_found (args.picker_id | args.asset_ids[i]) | conflict (args.asset_ids)
 */
export async function submitSelection(
  deps: PickerDeps,
  scope: Scope,
  pickerId: string,
  assetIds: string[],
): Promise<SelectionState & { already_confirmed: boolean }> {
  await expireStale(deps);
  const p = await deps.pickers.byId(scope, pickerId);
  if (!p) throw new ServiceError('not_found', 'args.picker_id', `picker ${pickerId} does not exist in workspace ${scope.workspaceId}`);
  const ids = assetIds.map((a) => a.toLowerCase());
  for (const [i, id] of ids.entries()) {
    if (!(await deps.library.assets.byId(scope, id)))
      throw new ServiceError('not_found', `args.asset_ids[${i}]`, `asset ${id} does not exist in workspace ${scope.workspaceId}`);
  }
  const same = (a: string[], b: string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
  if (
    (p.status === 'awaiting_user' || p.status === 'candidates') &&
    (await deps.pickers.finish(scope, p.id, 'confirmed', ids, new Date().toISOString()))
  ) {
    return { ...(await stateOf(deps, scope, (await deps.pickers.byId(scope, p.id))!)), already_confirmed: false };
  }
  const now = (await deps.pickers.byId(scope, p.id))!;
  if (now.status === 'confirmed' && same(now.selection, ids)) return { ...(await stateOf(deps, scope, now)), already_confirmed: true };
  throw new ServiceError(
    'conflict',
    'args.asset_ids',
    `picker ${p.id} is already ${now.status}${now.status === 'confirmed' ? ' with a different selection' : ''}; open a new picker with select`,
    {
      details: { status: now.status, selection: now.selection },
    },
  );
}
