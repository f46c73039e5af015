import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { Transport, ClientCapabilities, JSONRPCMessage } from '@modelcontextprotocol/client';
import type { App } from '../../server/app.ts';
import { ServiceError } from '../../server/errors.ts';
import { createServer } from '../../server/mcp/create-server.ts';
import { authenticate } from '../../server/tenancy/admin.ts';
import { wrapClient, type TestClient } from './harness.ts';

/** Client capabilities of an MCP Apps host (SEP-1865 extension declaration, as ext-apps' AppBridge hosts send it). */
export const APPS_CLIENT_CAPABILITIES: ClientCapabilities = {
  extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
};

/** Bytes (UTF-8) of a value serialized as JSON, as it travels in a JSON-RPC message. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value ?? null), 'utf8');
}

/**
 * Passes messages through and keeps the last JSON-RPC `result` the server sent, so a test or bench can
 * weigh exactly what a client receives (initialize, tools/list, tools/call results).
 */
class RecordingTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (e: Error) => void;
  lastResult: unknown = undefined;
  constructor(private readonly inner: Transport) {
    inner.onmessage = (m: JSONRPCMessage, extra) => {
      if ('result' in m) this.lastResult = m.result;
      this.onmessage?.(m, extra);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (e) => this.onerror?.(e);
  }
  start(): Promise<void> {
    return this.inner.start();
  }
  send(m: JSONRPCMessage, o?: Parameters<Transport['send']>[1]): Promise<void> {
    return this.inner.send(m, o);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** A test client that also exposes the raw JSON-RPC result of its last request. */
export interface WeighingClient extends TestClient {
  /** the `result` object of the last response, exactly as received */
  lastResult(): unknown;
}

/** Connect an in-memory SDK client to `app` with the given capabilities, recording raw results. */
export async function connectWeighing(app: App, apiKey: string, capabilities: ClientCapabilities = {}): Promise<WeighingClient> {
  const server = await createServer(
    app.server,
    async () => {
      const p = await authenticate(app.library.tenancy, apiKey);
      if (!p) throw new ServiceError('unauthenticated', null, 'invalid API key');
      return p;
    },
    (await authenticate(app.library.tenancy, apiKey)) ?? undefined,
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const recorder = new RecordingTransport(clientSide);
  const client = new Client({ name: 'atelier-weigh', version: '0' }, { capabilities });
  await client.connect(recorder);
  return { ...wrapClient(client), lastResult: () => recorder.lastResult };
}
