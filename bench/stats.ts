import fs from 'node:fs';

/** Percentile (nearest-rank) of samples in ms. */
export function percentile(samples: number[], p: number): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? NaN;
}

/** Time `fn` `runs` times after `warmup` runs. @returns samples in ms */
export async function timeIt(fn: () => unknown, runs: number, warmup = 2): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out;
}

/**
 * Time several functions interleaved: run i calls each `fns[j](i)` once, in an order rotated by i, so
 * machine noise, garbage collection and heap growth fall on every function alike (after `warmup` runs).
 * @returns samples in ms, one array per function
 */
export async function timeInterleaved(fns: ((i: number) => unknown)[], runs: number, warmup = 2): Promise<number[][]> {
  for (let i = 0; i < warmup; i++) for (const fn of fns) await fn(runs + i);
  const out = fns.map((): number[] => []);
  for (let i = 0; i < runs; i++) {
    for (let j = 0; j < fns.length; j++) {
      const at = (i + j) % fns.length;
      const t = performance.now();
      await fns[at]!(i);
      out[at]!.push(performance.now() - t);
    }
  }
  return out;
}

/** Print a Markdown table. */
export function table(headers: string[], rows: (string | number)[][]): void {
  const line = (cells: (string | number)[]): string => `| ${cells.join(' | ')} |`;
  process.stdout.write(`${[line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n')}\n`);
}

/**
 * Print one Markdown row per operation comparing SQLite with PostgreSQL: p50 and p95 of each (ms) and the
 * PostgreSQL/SQLite p50 ratio. `samples` is keyed `<backend>|<operation>` with backend `SQLite` or `PostgreSQL`.
 */
export function backendTable(samples: Map<string, number[]>): void {
  const ops = [...new Set([...samples.keys()].map((k) => k.split('|')[1]!))];
  table(
    ['operation', 'SQLite p50 ms', 'SQLite p95 ms', 'PostgreSQL p50 ms', 'PostgreSQL p95 ms', 'p50 ratio PG/SQLite'],
    ops.map((op) => {
      const l = samples.get(`SQLite|${op}`)!;
      const p = samples.get(`PostgreSQL|${op}`)!;
      return [
        op,
        percentile(l, 50).toFixed(3),
        percentile(l, 95).toFixed(3),
        percentile(p, 50).toFixed(3),
        percentile(p, 95).toFixed(3),
        (percentile(p, 50) / percentile(l, 50)).toFixed(1),
      ];
    }),
  );
}

/**
 * CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat (fields 14 and 15, in clock
 * ticks of 1/100 s; Linux only). @throws Error (ENOENT) when the process is gone
 */
export function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
