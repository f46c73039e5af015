// Worker thread of server/enrichment/ocr.ts: tesseract.js's own Node worker script, run at the lowest CPU
// priority (nice 19). OCR is background enrichment that nobody waits on; at the same priority its WASM
// engine takes a core from the requests an agent does wait on (search, view) whenever the machine is
// busy. On Linux a thread's nice value is its own (setpriority(2), NOTES: "the nice value is a per-thread
// attribute"), so only this thread (and any it starts) runs lower; where lowering is not permitted or
// not per thread, OCR runs at the normal priority. Plain JavaScript so it loads the same under node, tsx
// and vitest. The script it loads is tesseract.js's default `workerPath` for Node (src/worker/node/defaultOptions.js).
import { createRequire } from 'node:module';
import os from 'node:os';

try {
  os.setPriority(19);
} catch {
  // EACCES/ENOSYS: keep the inherited priority
}
createRequire(import.meta.url)('tesseract.js/src/worker-script/node/index.js');
