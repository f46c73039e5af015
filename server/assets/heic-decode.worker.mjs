// Worker thread of server/assets/heic.ts: decodes HEIC/HEIF (HEVC) with heic-decode (libheif compiled
// to WebAssembly) off the main thread, where it would block every other request for the length of the
// decode. Plain JavaScript so it loads the same under node, tsx and vitest.
// Message in: { id, bytes: Uint8Array }. Out: { id, width, height, data: Uint8Array (RGBA) } or { id, error }.
// workerData.nice (0–19): this thread's CPU priority; on Linux a thread's nice value is its own
// (setpriority(2)), so the decode yields the CPU to the thread serving requests.
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import decode from 'heic-decode';

if (workerData?.nice > 0) {
  try {
    os.setPriority(workerData.nice);
  } catch {
    // EACCES/ENOSYS: keep the inherited priority
  }
}

// libheif-js reports a failed decode with console.log; under the stdio transport stdout is the JSON-RPC
// channel, so this thread's console.log goes to stderr.
console.log = (...args) => console.error(...args);

parentPort.on('message', async ({ id, bytes }) => {
  try {
    const image = await decode({ buffer: bytes });
    const data = new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.byteLength);
    parentPort.postMessage({ id, width: image.width, height: image.height, data }, [data.buffer]);
  } catch (e) {
    parentPort.postMessage({ id, error: e instanceof Error ? e.message : String(e) });
  }
});
