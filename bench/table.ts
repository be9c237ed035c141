/** Plain fixed-width tables for the terminal (and CI logs); BENCHMARKS.md renders the same `Table`s. */

export interface Table {
  headers: string[];
  rows: (string | number)[][];
}

export function table({ headers, rows }: Table): string {
  const cells = [headers, ...rows.map((row) => row.map(String))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  const line = (row: string[]) =>
    row
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((width) => '-'.repeat(width))), ...cells.slice(1).map(line)].join(
    '\n',
  );
}

export const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
export const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;
export const us = (value: number) => `${value.toFixed(1)} µs`;
export const times = (value: number) => `${value.toFixed(2)}×`;
