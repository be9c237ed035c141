import { vi } from 'vitest';

export type LogLine = Record<string, unknown> & { level: string; message: string };

export interface LogCapture {
  /** The logger's JSON lines written since the capture started. */
  lines(): LogLine[];
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
  const lines = () =>
    text()
      .split('\n')
      .flatMap((line) => {
        try {
          const parsed = JSON.parse(line);
          return typeof parsed?.level === 'string' && typeof parsed.message === 'string' ? [parsed] : [];
        } catch {
          return [];
        }
      });
  const end = () => {
    for (const spy of spies) spy.mockRestore();
  };
  return { lines, text, end };
}
