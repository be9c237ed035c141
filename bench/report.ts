import { type Figure, type Figures, verdict } from './budgets.ts';

/**
 * What every section shares, and how the bench prints: each section's figures as one Markdown table on
 * stdout, so that the text of a full run is also what BENCHMARKS.md shows under "Latest figures".
 */

export interface Bench {
  smoke: boolean;
  figures: Figures;
  errors: string[];
  /** Scratch space for bundles (.local/bench, ignored by git). */
  workDirectory: string;
}

export const log = (line = '') => process.stdout.write(`${line}\n`);

/** What the bench is doing now, for the progress lines. */
let doing = 'starting';
export const working = (what: string) => {
  doing = what;
};

const shown = ({ value, unit }: Figure) =>
  `${typeof value === 'number' ? Math.round(value * 1000) / 1000 : value.replaceAll('|', '\\|')} ${unit}`.trim();

/** The figures as a grid: rows and columns split at the last `: ` of their names, each budget with its target. */
function grid(figures: Figure[]): string {
  const split = ({ figure }: Figure) => {
    const at = figure.lastIndexOf(': ');
    return at < 0 ? [figure, 'value'] : [figure.slice(0, at), figure.slice(at + 2)];
  };
  const cells = new Map(figures.map((f) => [split(f).join(': '), f]));
  const names = (k: number) => [...new Set(figures.map((f) => split(f)[k] ?? ''))];
  const [rows, columns] = [names(0), names(1)];
  const cell = (f?: Figure) =>
    !f ? '' : `${shown(f)}${f.limit === undefined ? '' : ` (≤ ${f.limit})${f.met ? '' : ` ${verdict(f)}`}`}`;
  const head = ['', ...columns];
  const body = rows.map((row) => [row, ...columns.map((column) => cell(cells.get(`${row}: ${column}`)))]);
  const widths = head.map((_, c) => Math.max(3, ...[head, ...body].map((row) => row[c]?.length ?? 0)));
  const line = (row: string[]) => `| ${row.map((text, c) => text.padEnd(widths[c] ?? 0)).join(' | ')} |`;
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

let current: { bench: Bench; from: number; notes: string[] } | undefined;

/** A line printed below the current section's table. */
export const note = (line: string) => current?.notes.push(line);

/**
 * Prints the figures of the section before, then starts one: its figures are those measured until the
 * next. With `work`, runs it as the section's part.
 */
export async function section(bench: Bench, title: string, work?: () => Promise<unknown>): Promise<void> {
  const figures = current?.bench.figures.all.slice(current.from) ?? [];
  if (figures.length > 0) log(grid(figures));
  if (current?.notes.length) log(`\n${current.notes.map((line) => `- ${line}`).join('\n')}`);
  current = { bench, from: bench.figures.all.length, notes: [] };
  log(`\n### ${title}\n`);
  if (work) await part(bench, title, work);
}

/** Prints `… <part>: <s> s so far` to stderr every 20 s: a run of several minutes is never silent for long. */
export function startProgress(startedAt: number): () => void {
  const seconds = () => Math.round((Date.now() - startedAt) / 1000);
  const timer = setInterval(() => process.stderr.write(`… ${doing}: ${seconds()} s so far\n`), 20_000);
  timer.unref();
  return () => clearInterval(timer);
}

/** Runs one part of the bench; a failure is reported and fails the run, and the rest still runs. */
export async function part<T>(bench: Bench, name: string, work: () => Promise<T>): Promise<T | undefined> {
  doing = name;
  try {
    return await work();
  } catch (error) {
    bench.errors.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    log(`ERROR ${bench.errors.at(-1)}`);
    return undefined;
  }
}

/** Order statistics for timings: medians resist the odd slow sample that a shared machine produces. */
export function summarize(values: readonly number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  return { median: at(0.5) ?? Number.NaN, p99: at(0.99) ?? Number.NaN };
}

/** `work`'s result and how long it took, in ms. */
export async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  return { result: await work(), ms: performance.now() - started };
}

export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
export const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
export const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;
export const us = (value: number) => `${value.toFixed(1)} µs`;
export const times = (value: number) => `${value.toFixed(2)}×`;
