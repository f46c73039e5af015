import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { JsonValue } from '@modelcontextprotocol/ext-tasks/core';
import { createTaskSessionFromClient, type RawClientDispatch, type TaskEnabledSession } from '@modelcontextprotocol/ext-tasks/client';

export const MODERN = '2026-07-28';
const CLIENT_INFO = { name: 'tasks-agent', version: '0' };

/** The body field the SEP-2243 `Mcp-Name` header mirrors, per method (tasks/*: the task id, SEP-2663). */
const NAME_FIELD: Record<string, string> = {
  'tools/call': 'name',
  'tasks/get': 'taskId',
  'tasks/cancel': 'taskId',
  'tasks/update': 'taskId',
};

let nextId = 0;

/**
 * TEST ONLY: a host's raw request path for ext-tasks (`rawDispatch`): POST one framed JSON-RPC request to
 * `mcpUrl` as a 2026-07-28 client does (no session; `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` headers;
 * the API key as Bearer) and hand back its result or error, from a JSON or an SSE answer. The SDK Client
 * cannot carry these shapes itself (its codec rejects a `resultType: "task"` tools/call result).
 */
export function rawDispatchTo(mcpUrl: string, apiKey: string): RawClientDispatch {
  return async (request, options) => {
    const req = request as { method: string; params?: Record<string, JsonValue> };
    const field = NAME_FIELD[req.method];
    const name = field ? req.params?.[field] : undefined;
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${apiKey}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': MODERN,
        'Mcp-Method': req.method,
        ...(typeof name === 'string' ? { 'Mcp-Name': name } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++nextId, ...req }),
      ...(options?.signal ? { signal: options.signal } : {}),
    });
    const text = await res.text();
    const json = text.trimStart().startsWith('{') ? text : /^data: (.*)$/m.exec(text)?.[1];
    if (!json) throw new Error(`HTTP ${res.status} without a JSON-RPC answer: ${text.slice(0, 200)}`);
    const body = JSON.parse(json) as { result?: JsonValue; error?: { code: number; message: string; data?: JsonValue } };
    return body.error ? { kind: 'error', error: body.error } : { kind: 'result', result: body.result ?? null };
  };
}

/** A v2 SDK Client pinned to revision 2026-07-28 on `mcpUrl` (no initialize, no session), connected. */
export async function modernClient(mcpUrl: string, apiKey: string): Promise<Client> {
  const client = new Client(CLIENT_INFO, { capabilities: {}, versionNegotiation: { mode: { pin: MODERN } } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${apiKey}` } } }),
  );
  return client;
}

/**
 * TEST ONLY: an ext-tasks requester session (`createTaskSessionFromClient`) over a modern client of `mcpUrl`,
 * declaring the Tasks extension on every request it frames. Close the session, then the client.
 */
export async function taskSession(mcpUrl: string, apiKey: string): Promise<{ client: Client; session: TaskEnabledSession }> {
  const client = await modernClient(mcpUrl, apiKey);
  const session = createTaskSessionFromClient(client, {
    endpointId: mcpUrl,
    rawDispatch: rawDispatchTo(mcpUrl, apiKey),
    v2RequestFraming: { protocolVersion: MODERN, clientInfo: CLIENT_INFO, clientCapabilities: {} },
  });
  return { client, session };
}
