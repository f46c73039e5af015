#!/usr/bin/env node
// Entry point of the `atelier` CLI: runs the TypeScript sources through tsx's ESM loader.
import { register } from 'tsx/esm/api';

register();
await import('../server/cli/index.ts');
