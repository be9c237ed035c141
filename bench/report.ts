import { type Figure, type Figures, verdict } from './budgets.ts';

/** What every section shares, and how the bench prints: each section's figures as one Markdown table. */

export interface Bench {
  smoke: boolean;
  figures: Figures;
  errors: string[];
  workDirectory: string;
}

export const log = (line = '') => process.stdout.write(`${line}\n`);

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

/** Runs one part of the bench; a failure is reported and fails the run, and the rest still runs. */
export async function part<T>(bench: Bench, name: string, work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    bench.errors.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    log(`ERROR ${bench.errors.at(-1)}`);
    return undefined;
  }
}

/** Timings are medians: they resist the odd slow sample that a shared machine produces. */
export const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.ceil(values.length / 2) - 1] ?? Number.NaN;

export async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  return { result: await work(), ms: performance.now() - started };
}

export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
export const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
export const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;
export const us = (value: number) => `${value.toFixed(1)} µs`;
