import { vi } from 'vitest';
import { logger } from '#lib/log';

export type LogLine = Record<string, unknown> & { level: string; message: string };

export interface LogCapture {
  /** The logger's JSON lines written since the capture started. */
  lines(): LogLine[];
  /** Everything written to stdout and stderr, as one text: for "never appears" checks. */
  text(): string;
  /** Stops recording and puts the log level back. */
  end(): void;
}

/**
 * Records what the process writes to stdout and stderr, where the logger's lines go deployed, with
 * the logger at INFO whatever the test run's LOG_LEVEL.
 */
export function captureLogs(): LogCapture {
  const written: string[] = [];
  const spies = [process.stdout, process.stderr].map((stream) =>
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    }),
  );
  const previous = logger.getLevelName();
  logger.setLogLevel('INFO');
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
    logger.setLogLevel(previous);
  };
  return { lines, text, end };
}
