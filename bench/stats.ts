/** Order statistics for timings: medians resist the odd slow sample that a shared machine produces. */

export interface Summary {
  samples: number;
  median: number;
  p99: number;
  min: number;
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] as number;
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    samples: sorted.length,
    median: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    min: sorted[0] ?? Number.NaN,
  };
}

export const round = (value: number, digits = 2) => {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
};
