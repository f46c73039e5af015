import {
  CancelTaskRequestV2Schema,
  GetTaskRequestV2Schema,
  TASKS_EXTENSION_ID_V2,
  UpdateTaskRequestV2Schema,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import { MissingRequiredClientCapabilityError, ProtocolError, ProtocolErrorCode, type McpServer } from '@modelcontextprotocol/server';
import type { Principal } from '../domain/scope.ts';
import { ServiceError } from '../errors.ts';
import { clientCapabilitiesOf, type Extra, type PrincipalResolver } from './register-router.ts';
import { clientDeclaresTasks, type ToolTasks } from './tasks.ts';

/**
 * The caller of a task request, after the checks the Tasks extension asks of every one: the client declared
 * the extension on this request (else -32021 naming it), and it is authenticated (each task request is
 * authorised on its own; the task's tenant is checked by the lookups).
 * @throws MissingRequiredClientCapabilityError (-32021) | ProtocolError InvalidRequest when unauthenticated
 */
async function taskCaller(mcp: McpServer, extra: Extra, resolvePrincipal: PrincipalResolver): Promise<Principal> {
  if (!clientDeclaresTasks(clientCapabilitiesOf(mcp, extra)))
    throw new MissingRequiredClientCapabilityError(
      { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID_V2]: {} } } },
      'Missing required client capability: the io.modelcontextprotocol/tasks extension',
    );
  try {
    return await resolvePrincipal(extra);
  } catch (e) {
    if (e instanceof ServiceError) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, e.message);
    throw e;
  }
}

/** The -32602 answer for a task id the caller's tenant does not have (or that expired), in the spec's words. */
function notFound(taskId: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Failed to retrieve task: Task not found (${taskId})`);
}

/**
 * Install `tasks/get`, `tasks/cancel` and `tasks/update` (Tasks extension, revision 2026-07-28) on a server
 * of the modern era; params are parsed with ext-tasks' generated V2 request schemas. `tasks/get` answers the
 * detailed task (its tool result inline once completed); `tasks/cancel` acknowledges with an empty result and
 * stops the work cooperatively; `tasks/update` acknowledges and ignores its responses, since Atelier's tasks
 * never ask for input. An unknown (or another tenant's) task id is -32602 for all three.
 * https://modelcontextprotocol.github.io/ext-tasks/specification/2026-07-28/tasks.html
 */
export function registerTaskMethods(mcp: McpServer, tasks: ToolTasks, resolvePrincipal: PrincipalResolver): void {
  const server = mcp.server;
  server.setRequestHandler('tasks/get', { params: GetTaskRequestV2Schema.shape.params }, async (params, extra) => {
    const principal = await taskCaller(mcp, extra, resolvePrincipal);
    const task = await tasks.get(principal, params.taskId);
    if (!task) throw notFound(params.taskId);
    return task;
  });
  server.setRequestHandler('tasks/cancel', { params: CancelTaskRequestV2Schema.shape.params }, async (params, extra) => {
    const principal = await taskCaller(mcp, extra, resolvePrincipal);
    if (!(await tasks.cancel(principal, params.taskId))) throw notFound(params.taskId);
    return {};
  });
  server.setRequestHandler('tasks/update', { params: UpdateTaskRequestV2Schema.shape.params }, async (params, extra) => {
    const principal = await taskCaller(mcp, extra, resolvePrincipal);
    if (!(await tasks.get(principal, params.taskId))) throw notFound(params.taskId);
    return {};
  });
}
