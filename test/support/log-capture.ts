import { vi } from 'vitest';

export type LogLine = Record<string, unknown> & { level: string; message: string };

/** An embedded-metric-format line: what CloudWatch turns into metrics. */
type MetricLine = Record<string, unknown> & {
  _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] };
};

export interface LogCapture {
  /** The logger's JSON lines written since the capture started. */
  lines(): LogLine[];
  /** The metrics lines written since the capture started. */
  metrics(): MetricLine[];
  /** Everything written to stdout and stderr, as one text: for "never appears" checks. */
  text(): string;
  /** Stops recording. */
  end(): void;
}

/**
 * Records what the process writes to stdout and stderr, where the logger's lines go deployed. The
 * logger takes its level when it is built: a test file that reads lines sets LOG_LEVEL in `vi.hoisted`.
 */
export function captureLogs(): LogCapture {
  const written: string[] = [];
  const spies = [process.stdout, process.stderr].map((stream) =>
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    }),
  );
  const text = () => written.join('');
  const parsedLines = () =>
    text()
      .split('\n')
      .flatMap((line) => {
        try {
          return [JSON.parse(line)];
        } catch {
          return [];
        }
      });
  const lines = (): LogLine[] =>
    parsedLines().filter((parsed) => typeof parsed?.level === 'string' && typeof parsed.message === 'string');
  const metrics = (): MetricLine[] => parsedLines().filter((parsed) => parsed?._aws);
  const end = () => {
    for (const spy of spies) spy.mockRestore();
  };
  return { lines, metrics, text, end };
}
