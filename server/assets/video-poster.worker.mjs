// Worker thread of server/assets/video.ts `videoPoster`: decode one frame of a video with ffmpeg.wasm
// (@ffmpeg/core, an optional dependency) and post it back as PNG bytes. Plain JavaScript because worker
// threads do not inherit the tsx loader of the main thread. One worker per poster; the caller terminates it.
// workerData: { bytes: Uint8Array, atS: number, module: WebAssembly.Module, nice: number }  →  message: { png: Uint8Array | null, log: string[] }
// `nice` (0–19) is this thread's CPU priority on Linux, where a thread's nice value is its own (setpriority(2)):
// the decode yields the CPU to the thread serving requests.
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';

if (workerData.nice > 0) {
  try {
    os.setPriority(workerData.nice);
  } catch {
    // EACCES/ENOSYS: keep the inherited priority
  }
}

// The ESM build of @ffmpeg/core targets Web Workers and reads `self.location` for its script directory; the
// wasm comes compiled from the main thread (instantiateWasm), so this thread-local stand-in fetches nothing.
globalThis.self = { location: { href: import.meta.url } };
const { default: createFFmpegCore } = await import('@ffmpeg/core');
const core = await createFFmpegCore({
  instantiateWasm(imports, receive) {
    WebAssembly.instantiate(workerData.module, imports).then((instance) => receive(instance));
    return {};
  },
});
const log = [];
core.setLogger((m) => log.push(m.message));
core.FS.writeFile('/in', workerData.bytes);
const grab = (atS) => {
  core.reset();
  const args = [...(atS > 0 ? ['-ss', String(atS)] : []), '-i', '/in', '-frames:v', '1', '-f', 'image2', '-c:v', 'png', '/out.png'];
  core.exec(...args);
  try {
    return core.FS.readFile('/out.png');
  } catch {
    return null;
  }
};
// A frame a little into the clip (first frames are often black); the first frame when that finds none.
const png = grab(workerData.atS) ?? (workerData.atS > 0 ? grab(0) : null);
parentPort.postMessage({ png, log: log.slice(-5) }, png ? [png.buffer] : []);
