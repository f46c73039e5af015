import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  isLegacyRequest,
  LATEST_PROTOCOL_VERSION,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { isLegacyHttpRequest } from './eras.ts';

const MODERN = LATEST_PROTOCOL_VERSION;
const envelope = {
  [PROTOCOL_VERSION_META_KEY]: MODERN,
  [CLIENT_CAPABILITIES_META_KEY]: {},
  [CLIENT_INFO_META_KEY]: { name: 't', version: '0' },
};
const call = { name: 'svc_assets', arguments: { action: 'capabilities', args: {} } };

/** [label, headers, parsed body (undefined: no JSON body)] */
const CASES: [string, IncomingHttpHeaders, unknown][] = [
  [
    'initialize',
    {},
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } },
    },
  ],
  [
    '2025 call in a session',
    { 'mcp-session-id': 's1', 'mcp-protocol-version': '2025-11-25' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: call },
  ],
  ['2025 notification', { 'mcp-session-id': 's1' }, { jsonrpc: '2.0', method: 'notifications/initialized' }],
  ['posted response', { 'mcp-session-id': 's1' }, { jsonrpc: '2.0', id: 9, result: {} }],
  ['legacy batch', {}, [{ jsonrpc: '2.0', method: 'notifications/initialized' }]],
  ['no JSON body', {}, undefined],
  [
    'modern call',
    { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'svc_assets' },
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { ...call, _meta: envelope } },
  ],
  [
    'modern discover',
    { 'mcp-protocol-version': MODERN, 'mcp-method': 'server/discover' },
    { jsonrpc: '2.0', id: 4, method: 'server/discover', params: { _meta: envelope } },
  ],
  ['modern header, no envelope', { 'mcp-protocol-version': MODERN }, { jsonrpc: '2.0', id: 5, method: 'tools/list', params: {} }],
  [
    'envelope, header disagrees',
    { 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'tools/list' },
    { jsonrpc: '2.0', id: 6, method: 'tools/list', params: { _meta: envelope } },
  ],
  [
    'envelope naming an unknown revision',
    {},
    { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: { ...envelope, [PROTOCOL_VERSION_META_KEY]: '2099-01-01' } } },
  ],
  [
    'method header repeated',
    { 'mcp-protocol-version': MODERN, 'mcp-method': ['tools/list', 'tools/call'] },
    { jsonrpc: '2.0', id: 8, method: 'tools/list', params: { _meta: envelope } },
  ],
];

describe('era of an /mcp POST', () => {
  it.each(CASES)('%s: the same decision as the SDK’s isLegacyRequest', async (_label, headers, body) => {
    const sdk = new Headers();
    for (const [k, v] of Object.entries(headers)) for (const one of Array.isArray(v) ? v : [v!]) sdk.append(k, one);
    const expected = await isLegacyRequest(new Request('http://atelier.invalid/mcp', { method: 'POST', headers: sdk }), body);
    const req = { method: 'POST', url: '/mcp', headers, body } as IncomingMessage & { body?: unknown };
    expect(isLegacyHttpRequest(req)).toBe(expected);
  });
  it('tells the two eras apart', () => {
    const req = (headers: IncomingHttpHeaders, body: unknown) =>
      ({ method: 'POST', headers, body }) as IncomingMessage & { body?: unknown };
    expect(isLegacyHttpRequest(req(CASES[1]![1], CASES[1]![2]))).toBe(true);
    expect(isLegacyHttpRequest(req(CASES[6]![1], CASES[6]![2]))).toBe(false);
  });
});
