import type { Operation } from '#lib/routes';
import type { Budgets } from './budgets.ts';

/** What every section of the bench shares: its settings, where it prints, where failures and budgets go. */

interface Settings {
  /** Fresh-process imports per bundle. */
  imports: number;
  /** Warm requests per operation (each with its bare calls and its HTTP hop). */
  requests: number;
  warmup: number;
  coldAuthSamples: number;
  /** Requests of 1000 new recipients, each with its floors and its replay. */
  recipientRuns: number;
  /** Batches per token kind. */
  tokenBatches: number;
}

export interface Bench {
  smoke: boolean;
  settings: Settings;
  /** Operations whose function file exists. */
  available: Operation[];
  budgets: Budgets;
  errors: string[];
  /** Scratch space for bundles and generated files (.local/bench, ignored by git). */
  workDirectory: string;
}

export const log = (line = '') => process.stdout.write(`${line}\n`);

/** What the bench is doing now, for the progress lines. */
let doing = 'starting';

export const section = (title: string) => {
  doing = title;
  log(`\n## ${title}\n`);
};

/** How often a long run says that it is still working, and on what. */
const PROGRESS_EVERY_MS = 20_000;

/**
 * Prints `… <section or part>: <s> s so far` every 20 s until stopped, so that a run of several
 * minutes is never silent for long (one line to stderr: the tables on stdout stay as they are).
 */
export function startProgress(startedAt: number): () => void {
  const timer = setInterval(() => {
    process.stderr.write(`… ${doing}: ${Math.round((Date.now() - startedAt) / 1000)} s so far\n`);
  }, PROGRESS_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** Runs one part of the bench; a failure is reported and fails the run, and the rest still runs. */
export async function part<T>(bench: Bench, name: string, work: () => Promise<T>): Promise<T | undefined> {
  doing = name;
  try {
    return await work();
  } catch (error) {
    const message = `${name}: ${error instanceof Error ? error.message : String(error)}`;
    bench.errors.push(message);
    log(`ERROR ${message}`);
    return undefined;
  }
}
