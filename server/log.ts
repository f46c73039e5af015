import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Create the root logger. Always writes to stderr (fd 2): under the stdio transport stdout is the
 * JSON-RPC channel and must carry nothing else.
 */
export function createLogger(level: string): Logger {
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ fd: 2, sync: true }));
}
