/** Order statistics for timings (medians resist the odd slow sample that a shared machine produces), and units. */

export interface Summary {
  samples: number;
  median: number;
  p99: number;
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  return { samples: sorted.length, median: at(0.5) ?? Number.NaN, p99: at(0.99) ?? Number.NaN };
}

export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
export const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
export const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;
export const us = (value: number) => `${value.toFixed(1)} µs`;
export const times = (value: number) => `${value.toFixed(2)}×`;

/** `work`'s result and how long it took, in ms. */
export async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
}
