import { AsyncLocalStorage } from 'node:async_hooks';

/** What one tool call resolved, for its log line (STYLE.md §5): set by scope resolution, read by the dispatcher. */
export interface CallLogFields {
  workspace_id?: string;
  store_id?: string;
}

const storage = new AsyncLocalStorage<CallLogFields>();

/** Run `fn` with a fresh log-field record for one tool call. @returns fn's result and the record */
export async function withCallLog<T>(fn: () => Promise<T>): Promise<{ result: T; fields: CallLogFields }> {
  const fields: CallLogFields = {};
  const result = await storage.run(fields, fn);
  return { result, fields };
}

/** Record the resolved scope of the current tool call (no-op outside one, e.g. in the CLI). */
export function noteCallScope(scope: { workspaceId: string; storeId?: string }): void {
  const f = storage.getStore();
  if (!f) return;
  f.workspace_id = scope.workspaceId;
  if (scope.storeId) f.store_id = scope.storeId;
}
