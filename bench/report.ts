import type { Operation } from '#lib/routes';
import { type Figure, type Figures, verdict } from './budgets.ts';

/**
 * What every section shares, and how the bench prints: each section's figures as one Markdown table on
 * stdout, so that the text of a full run is also what BENCHMARKS.md shows under "Latest figures".
 */

export interface Bench {
  smoke: boolean;
  /** Operations whose function file exists. */
  available: Operation[];
  /** Every figure of the run, budgets included. */
  figures: Figures;
  errors: string[];
  /** Scratch space for bundles (.local/bench, ignored by git). */
  workDirectory: string;
}

/** Every line printed so far: the figures part of BENCHMARKS.md. */
export const printed: string[] = [];
export const log = (line = '') => {
  printed.push(line);
  process.stdout.write(`${line}\n`);
};

/** What the bench is doing now, for the progress lines. */
let doing = 'starting';
export const working = (what: string) => {
  doing = what;
};

function table(rows: string[][]): string {
  const widths = (rows[0] ?? []).map((_, c) => Math.max(3, ...rows.map((row) => row[c]?.length ?? 0)));
  const line = (row: string[]) => `| ${row.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join(' | ')} |`;
  return [line(rows[0] ?? []), line(widths.map((w) => '-'.repeat(w))), ...rows.slice(1).map(line)].join('\n');
}

const shown = ({ value, unit }: Figure) =>
  `${typeof value === 'number' ? Math.round(value * 1000) / 1000 : value.replaceAll('|', '\\|')} ${unit}`.trim();

/**
 * The figures as a list (figure, value, target, verdict) or, for `grid`, as rows and columns split at
 * the last `: ` of their names (`list-runs: DynamoDB requests, warm`), each budget with its target.
 */
function figuresTable(figures: Figure[], grid: boolean): string {
  if (!grid) {
    const target = (f: Figure) => (f.limit === undefined ? '' : `≤ ${f.limit} ${f.unit}`);
    return table([
      ['figure', 'value', 'target', 'met'],
      ...figures.map((f) => [f.figure, shown(f), target(f), verdict(f)]),
    ]);
  }
  const split = (f: Figure) => {
    const at = f.figure.lastIndexOf(': ');
    return at < 0 ? [f.figure, 'value'] : [f.figure.slice(0, at), f.figure.slice(at + 2)];
  };
  const cells = new Map(figures.map((f) => [split(f).join(': '), f]));
  const rows = [...new Set(figures.map((f) => split(f)[0] as string))];
  const columns = [...new Set(figures.map((f) => split(f)[1] as string))];
  const cell = (f: Figure | undefined) =>
    !f ? '' : `${shown(f)}${f.limit === undefined ? '' : ` (≤ ${f.limit})${f.met ? '' : ` ${verdict(f)}`}`}`;
  return table([
    ['', ...columns],
    ...rows.map((row) => [row, ...columns.map((c) => cell(cells.get(`${row}: ${c}`)))]),
  ]);
}

let current: { bench: Bench; from: number; grid: boolean; notes: string[] } | undefined;

/** A line printed below the current section's table. */
export const note = (line: string) => current?.notes.push(line);

/** Prints the figures of the section before, then starts one: its figures are those measured until the next. */
export function section(bench: Bench, title: string, grid = false): void {
  const figures = current?.bench.figures.all.slice(current.from) ?? [];
  if (current && figures.length > 0) log(figuresTable(figures, current.grid));
  if (current?.notes.length) log(`\n${current.notes.map((line) => `- ${line}`).join('\n')}`);
  current = { bench, from: bench.figures.all.length, grid, notes: [] };
  doing = title;
  log(`\n### ${title}\n`);
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
