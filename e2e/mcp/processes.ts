import { spawn, type ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { backendEnv, REPO_ROOT, wrapClient, type TestClient } from './harness.ts';

/**
 * The `atelier` CLI entry point run by the child processes of these tests: `bin/atelier.mjs` (the TypeScript
 * sources through tsx), or the file `ATELIER_TEST_CLI` names — `npm test` sets it to `dist/server/cli/index.js`,
 * which its `npm pack` step has just compiled from the same sources: a child then starts without tsx's loader
 * hooks, in about half the time (these tests start some sixty children).
 * @throws Error when ATELIER_TEST_CLI names a file that does not exist
 */
export const CLI = cliEntry();

function cliEntry(): string {
  const chosen = process.env.ATELIER_TEST_CLI;
  if (!chosen) return path.join(REPO_ROOT, 'bin', 'atelier.mjs');
  const file = path.resolve(REPO_ROOT, chosen);
  if (!fs.existsSync(file)) throw new Error(`ATELIER_TEST_CLI=${chosen}: ${file} does not exist (run npm run build first)`);
  return file;
}

/** A real `atelier` child process with its collected output. */
export interface Child {
  proc: ChildProcess;
  /** resolves when the process exits, with its code (null when killed by a signal) and output */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/**
 * Start `atelier <args>` with `env` added to the test's environment; stdin stays open (a pipe). A child
 * given a data dir shares that test server's backends (its PostgreSQL schema and S3 prefix: `backendEnv`).
 * `nodeArgs` go to Node before the entry point (e.g. `--import` of a loader hook).
 */
export function spawnCli(args: string[], env: Record<string, string>, nodeArgs: string[] = []): Child {
  const shared = env.ATELIER_DATA_DIR ? backendEnv(path.basename(env.ATELIER_DATA_DIR)) : {};
  const proc = spawn(process.execPath, [...nodeArgs, CLI, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ATELIER_LOG_LEVEL: 'error', ...shared, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => {
    proc.on('exit', (code, signal) => {
      // let the pipes drain
      setImmediate(() => resolve({ code, signal, stdout, stderr }));
    });
  });
  return { proc, exited };
}

/** A fresh temp directory for pause-point markers (server/test-hooks.ts). */
export function pauseDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-pause-'));
}

/** Wait until `count` processes are paused at `point` (their `.paused` markers exist). @returns their pids */
export async function waitPaused(dir: string, point: string, count = 1, timeoutMs = 60_000): Promise<number[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const pids = fs
      .readdirSync(dir)
      .filter((f) => f.startsWith(`${point}.`) && f.endsWith('.paused'))
      .map((f) => Number(f.slice(point.length + 1, -'.paused'.length)));
    if (pids.length >= count) return pids;
    if (Date.now() > until) throw new Error(`no process paused at ${point} within ${timeoutMs} ms (found ${pids.length} of ${count})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Let every process paused (or later pausing) at `point` go on. */
export function resume(dir: string, point: string): void {
  fs.writeFileSync(path.join(dir, `${point}.resume`), '');
}

/** A TCP port on 127.0.0.1 that was free a moment ago (for a child process to bind). */
export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

/**
 * A `serve --stdio` server child process on `env`'s data dir (and its database and blob store:
 * `backendEnv`), with an SDK client over its stdio; `pid` for signals (SIGKILL, SIGSTOP).
 */
export async function stdioServer(
  env: Record<string, string> & { ATELIER_DATA_DIR: string },
): Promise<{ c: TestClient; pid: number; close(): Promise<void> }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--stdio'],
    env: { ...process.env, ATELIER_LOG_LEVEL: 'error', ATELIER_PORT: '0', ...backendEnv(path.basename(env.ATELIER_DATA_DIR)), ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'processes', version: '0' });
  await client.connect(transport);
  return { c: wrapClient(client), pid: transport.pid!, close: () => client.close() };
}
