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
export const section = (title: string) => log(`\n## ${title}\n`);

/** Runs one part of the bench; a failure is reported and fails the run, and the rest still runs. */
export async function part<T>(bench: Bench, name: string, work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    const message = `${name}: ${error instanceof Error ? error.message : String(error)}`;
    bench.errors.push(message);
    log(`ERROR ${message}`);
    return undefined;
  }
}
