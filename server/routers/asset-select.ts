import { ISLAND_MEDIA_PROPS, ROUTER } from '../../shared/actions.ts';
import { printable } from '../domain/printable.ts';
import type { SearchArgs } from '../../shared/schemas/asset.ts';
import type { SelectedAsset, SelectionState, SelectResult } from '../../shared/schemas/panel.ts';
import { inputRequired, inputResponse, type ElicitRequestFormParams, type InputResponseView } from '@modelcontextprotocol/server';
import {
  answerPicker,
  getSelection,
  openPicker,
  reopenPicker,
  selectAssets,
  type ElicitAnswer,
  type PickerChannel,
  type PickerDeps,
} from '../assets/select.ts';
import type { AssetVectorSearch } from '../assets/search.ts';
import { scopeFor, themeFor } from '../tenancy/scope.ts';
import { indexingNote } from './text.ts';
import type { Scope } from '../domain/scope.ts';
import { defineRouter, type ActionContext, type ActionOutput, type InputRequiredOutput, type RouterImpl } from './types.ts';

/** How long a form elicitation may wait for the user, ms (a human choice; the SDK default of 60 s is too short). */
const ELICIT_TIMEOUT_MS = 10 * 60_000;

const USE_URLS = `Put the original_url of each in ${ISLAND_MEDIA_PROPS}.`;

function line(a: SelectedAsset): string {
  return `${a.position}. ${printable(a.name)} — id ${a.id} — ${a.width ?? '?'}×${a.height ?? '?'} — original_url: ${a.original_url}`;
}

/** The form that asks the user: a titled multi-select of the candidates (MCP 2025-11-25 `TitledMultiSelectEnumSchema`). */
function selectionForm(args: SearchArgs, candidates: SelectedAsset[]): ElicitRequestFormParams {
  return {
    mode: 'form',
    message: `Choose the asset(s) to use${args.query ? ` for "${args.query}"` : ''} — ${candidates.length} best match(es). The order you pick them in is kept.`,
    requestedSchema: {
      type: 'object',
      properties: {
        asset_ids: {
          type: 'array',
          title: 'Assets',
          description: 'assets to use, in order',
          minItems: 1,
          maxItems: candidates.length,
          items: {
            anyOf: candidates.map((c) => ({ const: c.id, title: `${printable(c.name)} (${c.width ?? '?'}×${c.height ?? '?'})` })),
          },
        },
      },
      required: ['asset_ids'],
    },
  };
}

/** The accepted ids of a form answer (strings only, in the order given). */
function acceptedIds(content: unknown): string[] {
  const ids = (content as { asset_ids?: unknown } | undefined)?.asset_ids;
  return Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string') : [];
}

/** Ask the user through a form elicitation sent to the client (2025-era connections). */
function elicitChannel(ctx: ActionContext, args: SearchArgs): PickerChannel {
  return {
    delivery: 'elicitation',
    async ask(candidates): Promise<ElicitAnswer> {
      const r = await ctx.mcpContext.mcpReq.elicitInput(selectionForm(args, candidates), {
        signal: ctx.signal,
        timeout: ELICIT_TIMEOUT_MS,
      });
      if (r.action !== 'accept') return { action: r.action };
      return { action: 'accept', assetIds: acceptedIds(r.content) };
    },
  };
}

/** The key of the selection form among the `inputRequests` of a 2026-07-28 `input_required` answer. */
const SELECTION_INPUT = 'selection';

/** The user's answer as the retried call carries it; none (the client did not ask) counts as cancelled. */
function answerOf(r: InputResponseView): ElicitAnswer {
  if (r.kind !== 'elicit') return { action: 'cancel' };
  return r.action === 'accept' ? { action: 'accept', assetIds: acceptedIds(r.content) } : { action: r.action };
}

/**
 * `select` on a 2026-07-28 request from a client with form elicitation: there are no server-initiated
 * requests in that revision, so the first call stores the picker and answers `input_required` with the form
 * and the picker id as `requestState`; the client asks the user and calls again with the answer, which any
 * server process completes from the database (`reopenPicker`). Multi-round-trip requests: SEP-2322.
 */
async function selectByInputRequired(
  deps: PickerDeps,
  scope: Scope,
  args: SearchArgs,
  themeId: string,
  vectors: AssetVectorSearch | null,
  ctx: ActionContext,
): Promise<SelectResult | InputRequiredOutput> {
  const pickerId = ctx.mcpContext.mcpReq.requestState<string>();
  if (typeof pickerId === 'string') {
    const open = await reopenPicker(deps, scope, pickerId, vectors);
    return answerPicker(deps, scope, open, answerOf(inputResponse(ctx.mcpContext.mcpReq.inputResponses, SELECTION_INPUT)));
  }
  const opened = await openPicker(deps, scope, args, themeId, vectors, 'elicitation');
  if ('final' in opened) return opened.final;
  return {
    inputRequired: inputRequired({
      inputRequests: { [SELECTION_INPUT]: inputRequired.elicit(selectionForm(args, opened.open.candidates)) },
      requestState: opened.open.id,
    }),
  };
}

function selectOutput(result: SelectResult): ActionOutput<SelectResult> {
  return { structuredContent: result, text: describeSelect(result), _meta: { viewUUID: result.picker_id } };
}

function describeSelect(r: SelectResult): string {
  if (r.delivery === 'panel') {
    const total = r.page?.total ?? 0;
    return [
      `Picker ${r.picker_id} is open with ${total} matching asset(s). NOTHING IS SELECTED YET.`,
      'Stop here and wait for the user: when they confirm ("Use selected"), their message lists the chosen assets in selection order with name, id and original URL.',
      `If no message arrives, call svc_asset_select get_selection with {"picker_id": "${r.picker_id}"}. Do not pick assets yourself or claim a selection was made.`,
    ].join('\n');
  }
  if (r.status === 'confirmed')
    return [
      `The user selected ${r.selection.length} asset(s) (picker ${r.picker_id}), in this order:`,
      ...r.selection.map(line),
      USE_URLS,
    ].join('\n');
  if (r.status === 'declined' || r.status === 'cancelled')
    return `The user ${r.status} the choice (picker ${r.picker_id}); nothing was selected. Ask how to proceed or search again.`;
  const pending = indexingNote(r.indexing, 'assets', r.candidates.length > 0);
  if (r.candidates.length === 0)
    return pending
      ? `No assets match yet (picker ${r.picker_id}). ${pending.replace('this search', 'select')}`
      : `No assets match (picker ${r.picker_id}). Search with other words, or generate or import an asset.`;
  const why = r.delivery === 'elicitation' ? 'The client could not show the choice form' : 'This client shows no picker';
  return [
    `${why}, so ASK THE USER which of these ${r.candidates.length} best match(es) of ${r.total} to use (ranked, best first) and use the ones they name, in their order:`,
    ...r.candidates.map(line),
    r.has_more ? `More matches: call select again with cursor "${r.next_cursor}".` : 'No more matches.',
    ...(pending ? [pending] : []),
  ].join('\n');
}

/** Text of a picker state for the model. */
export function describeSelection(s: SelectionState): string {
  if (s.status === 'confirmed')
    return [
      `Picker ${s.picker_id}: the user selected ${s.selection.length} asset(s), in this order:`,
      ...s.selection.map(line),
      USE_URLS,
    ].join('\n');
  if (s.status === 'awaiting_user')
    return `Picker ${s.picker_id}: the user has not confirmed a selection yet. Wait for their message, or ask them to press "Use selected".`;
  if (s.status === 'expired')
    return `Picker ${s.picker_id} expired without a confirmed selection; open a new picker with select if the user still wants to choose.`;
  if (s.status === 'candidates')
    return `Picker ${s.picker_id} was answered with a candidate list (no interactive UI); ask the user which assets to use.`;
  return `Picker ${s.picker_id}: the user ${s.status} the choice; nothing was selected.`;
}

/** `svc_asset_select`: let the user pick assets (spec §4.2) and read the choice back by picker id. */
export function assetSelectRouter(deps: PickerDeps, vectors: () => AssetVectorSearch | null): RouterImpl<typeof ROUTER.assetSelect> {
  return defineRouter(ROUTER.assetSelect, {
    select: async (args, ctx) => {
      const scope = await scopeFor(deps.library.tenancy, ctx.principal, args.workspace_id);
      const theme = await themeFor(deps.library.tenancy, scope, args);
      const elicits = !ctx.clientRendersPanels && !!ctx.clientCapabilities?.elicitation?.form;
      const result =
        elicits && ctx.era === 'modern'
          ? await selectByInputRequired(deps, scope, args, theme.id, vectors(), ctx)
          : await selectAssets(
              deps,
              scope,
              args,
              theme.id,
              vectors(),
              ctx.clientRendersPanels ? { delivery: 'panel' } : elicits ? elicitChannel(ctx, args) : { delivery: 'text' },
              ctx.signal,
            );
      return 'inputRequired' in result ? result : selectOutput(result);
    },
    get_selection: async (args, ctx) => {
      const scope = await scopeFor(deps.library.tenancy, ctx.principal, args.workspace_id);
      const state = await getSelection(deps, scope, args.picker_id);
      return { structuredContent: state, text: describeSelection(state) };
    },
  });
}
