import { execFile } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { type Summary, summarize } from './stats.ts';

const run = promisify(execFile);
const PROBE = new URL('./import-probe.mjs', import.meta.url);

export interface ColdStartFigures {
  /** `await import(bundle)` in a fresh process, as Lambda's init phase does it. */
  importMs: Summary;
  /** From the process's start to the end of the import (Node's own start-up included). */
  processMs: Summary;
  /** Spawn to exit, seen from outside. */
  wallMs: Summary;
}

/**
 * Imports each bundle `iterations` times, each time in a fresh Node process (the Node running this
 * script: Node 24 under npm). Rounds go over all bundles in turn, so that a burst of load on the
 * machine hits every bundle alike rather than one of them.
 */
export async function measureColdStarts(
  bundles: { name: string; file: string }[],
  iterations: number,
): Promise<Map<string, ColdStartFigures>> {
  const samples = new Map(
    bundles.map(({ name }) => [
      name,
      { importMs: [] as number[], processMs: [] as number[], wallMs: [] as number[] },
    ]),
  );
  // Nothing from the caller's environment may change how Node loads the bundle.
  const { NODE_OPTIONS: _options, ...env } = process.env;
  for (let round = 0; round < iterations; round++) {
    for (let i = 0; i < bundles.length; i++) {
      const { name, file } = bundles[(i + round) % bundles.length] as { name: string; file: string };
      const started = performance.now();
      const { stdout } = await run(process.execPath, [PROBE.pathname, pathToFileURL(file).href], { env });
      const wallMs = performance.now() - started;
      const { importMs, processMs } = JSON.parse(stdout) as { importMs: number; processMs: number };
      const into = samples.get(name);
      into?.importMs.push(importMs);
      into?.processMs.push(processMs);
      into?.wallMs.push(wallMs);
    }
  }
  return new Map(
    [...samples].map(([name, s]) => [
      name,
      { importMs: summarize(s.importMs), processMs: summarize(s.processMs), wallMs: summarize(s.wallMs) },
    ]),
  );
}
