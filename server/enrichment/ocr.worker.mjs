// Worker thread of server/enrichment/ocr.ts: tesseract.js's own Node worker script, run at the lowest CPU
// priority (nice 19). OCR is background enrichment that nobody waits on; at the same priority its WASM
// engine takes a core from the requests an agent does wait on (search, view) whenever the machine is
// busy. On Linux a thread's nice value is its own (setpriority(2), NOTES: "the nice value is a per-thread
// attribute"), so only this thread (and any it starts) runs lower; where lowering is not permitted or
// not per thread, OCR runs at the normal priority. Plain JavaScript so it loads the same under node, tsx
// and vitest. The script it loads is tesseract.js's default `workerPath` for Node (src/worker/node/defaultOptions.js).
//
// Leptonica and Tesseract inside the WASM engine print diagnostics ("Error in boxClipToRectangle: box outside
// rectangle", "Error in pixScanForForeground: invalid box") through Emscripten's print/printErr, which bind
// console.log and console.error when the engine is loaded. A worker thread's console reaches the process's
// stdout and stderr, which are the JSON-RPC channel (stdio) and the JSON log; so this thread's console goes
// to a BroadcastChannel instead, and ocr.ts writes each line into the structured log (debug level).
import { createRequire } from 'node:module';
import os from 'node:os';
import { BroadcastChannel } from 'node:worker_threads';
import { format } from 'node:util';

const nativeOutput = new BroadcastChannel('atelier-ocr-native-output');
nativeOutput.unref();
for (const name of ['log', 'info', 'warn', 'error', 'debug']) {
  console[name] = (...args) => nativeOutput.postMessage({ stream: name, line: format(...args) });
}

try {
  os.setPriority(19);
} catch {
  // EACCES/ENOSYS: keep the inherited priority
}
createRequire(import.meta.url)('tesseract.js/src/worker-script/node/index.js');
