import { ROUTER } from '../../shared/routers.ts';
import type { SelectedAsset } from '../../shared/schemas/panel.ts';
import type { AtelierApp } from '../lib/use-atelier-app.ts';
import type { pickerActions } from './actions.ts';
import type { Handoff } from './Confirmed.tsx';

/** One chosen asset as the agent is told of it. */
export type Chosen = Pick<SelectedAsset, 'id' | 'name' | 'original_url'>;

export const plural = (n: number): string => `${n} asset${n === 1 ? '' : 's'}`;

/** The ordered selection as text for the agent: one line per asset with name, id and original URL. */
export function selectionLines(chosen: Chosen[]): string {
  return chosen.map((a, i) => `${i + 1}. ${a.name} (id ${a.id}) ${a.original_url}`).join('\n');
}

/**
 * Confirm a choice and tell the conversation (spec §4.2; research note §5.2, option B): store it with the
 * app-only `submit_selection`, then best effort `ui/update-model-context` (the ordered list, seen on the
 * agent's next turn) and `ui/message` (which starts the agent's turn) when the host offers it. Hosts may
 * lack or refuse either request; the choice stays readable with `get_selection` either way.
 * @param assetIds the selection in order (1–50 ids)
 * @returns the stored selection in order and what reached the assistant
 * @throws ActionError when `submit_selection` fails (nothing was stored; the user may retry)
 */
export async function confirmSelection(
  at: AtelierApp<typeof pickerActions.schemas>,
  pickerId: string,
  assetIds: string[],
  workspaceId: string | undefined,
): Promise<{ chosen: Chosen[]; handoff: Handoff }> {
  const state = await at.callAction(ROUTER.assetPanel, 'submit_selection', {
    picker_id: pickerId,
    asset_ids: assetIds,
    ...(workspaceId ? { workspace_id: workspaceId } : {}),
  });
  const chosen = state.selection;
  const lines = selectionLines(chosen);
  const app = at.app;
  let context = false;
  let message: Handoff['message'] = 'not_offered';
  if (!app) return { chosen, handoff: { message, context } };
  try {
    await app.updateModelContext({
      content: [{ type: 'text', text: `Asset picker ${pickerId}: the user confirmed ${plural(chosen.length)}, in this order:\n${lines}` }],
      structuredContent: {
        picker_id: pickerId,
        selection: chosen.map((a, i) => ({ position: i + 1, id: a.id, name: a.name, original_url: a.original_url })),
      },
    });
    context = true;
  } catch {
    /* model context is optional: the message and get_selection still carry the choice */
  }
  if (app.getHostCapabilities()?.message) {
    try {
      const sent = await app.sendMessage(
        {
          role: 'user',
          content: [{ type: 'text', text: `I selected ${plural(chosen.length)} (picker ${pickerId}), in this order:\n${lines}` }],
        },
        { timeout: 10_000 },
      );
      message = sent.isError ? 'refused' : 'sent';
    } catch {
      message = 'refused';
    }
  }
  return { chosen, handoff: { message, context } };
}
