import { readFile, writeFile } from 'node:fs/promises';
import type { AddRecipientsFigures } from './add-recipients.ts';
import { type Budget, BYTES_OVER_FLOOR, verdict } from './budgets.ts';
import type { OperationFigures } from './per-request.ts';
import type { ColdStartRow } from './section-cold-start.ts';
import { withoutHop } from './section-requests.ts';
import { round, type Summary } from './stats.ts';
import { kb, ms, times, us } from './table.ts';
import type { TokenFigures } from './tokens.ts';

/**
 * Renders a full run's figures as the "Latest figures" part of BENCHMARKS.md, between its markers, so
 * that the document always shows the numbers of the last `npm run bench`. The prose around is not touched.
 */

export interface RunResults {
  startedAt: string;
  durationSeconds: number;
  node: string;
  machine: { cpus: number; model?: string; loadBefore: number[] };
  skipped: { operation: string; note: string }[];
  coldStart: { functions: ColdStartRow[]; validation: ColdStartRow[] };
  tokens: TokenFigures[];
  perRequest?: OperationFigures[];
  coldAuthentication?: { credential: string; operation: string; coldMs: Summary; warmMs: Summary }[];
  addRecipients?: AddRecipientsFigures;
  budgets: Budget[];
}

const START = '<!-- bench:figures:start -->';
const END = '<!-- bench:figures:end -->';

function mdTable(headers: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) =>
    `| ${cells.map((cell) => String(cell).replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

const met = (budgets: Budget[], figure: string) => {
  const budget = budgets.find((b) => b.figure === figure);
  return budget ? verdict(budget) : '';
};

export function renderFigures(r: RunResults): string {
  const floor = r.coldStart.functions.find((row) => row.name === 'floor');
  const parts: string[] = [
    `Run of ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC: Node ${r.node}, ${r.machine.cpus} × ${r.machine.model}, ` +
      `load average ${r.machine.loadBefore.map((l) => l.toFixed(2)).join(' ')} at the start, ${r.durationSeconds} s.` +
      (r.skipped.length ? ` Skipped: ${r.skipped.map((s) => s.note).join('; ')}.` : ''),
    '### 1. Cold start',
    mdTable(
      [
        'bundle',
        'bytes',
        'gzip',
        'over floor (≤ 100 KB)',
        'import median (20)',
        'p99',
        '× floor (≤ 1.25)',
        '× floor w/o client',
        'bytes met',
        'import met',
      ],
      r.coldStart.functions.map((row) => {
        const isFloor = row.name.startsWith('floor');
        return [
          row.name,
          kb(row.bytes),
          kb(row.gzipBytes),
          isFloor ? '' : kb(row.bytesOverFloor),
          ms(row.cold?.importMs.median ?? Number.NaN),
          ms(row.cold?.importMs.p99 ?? Number.NaN),
          isFloor ? '' : times(row.importRatio),
          isFloor ? '' : times(row.importRatioUnconstructed),
          isFloor ? '' : met(r.budgets, `${row.name}: bundle bytes`),
          isFloor ? '' : met(r.budgets, `${row.name}: import / floor`),
        ];
      }),
    ),
    ...r.coldStart.functions
      .filter((row) => floor && row.bytesOverFloor > BYTES_OVER_FLOOR)
      .map(
        (row) =>
          `- ${row.name} holds beyond the floor: ${row.beyondFloor.map((p) => `${p.name} ${kb(p.bytes)}`).join(', ')}.`,
      ),
    '### Request validation choice (minimal handlers: Middy, JSON body, validation of the PUT schemas)',
    mdTable(
      ['validation', 'bytes', 'gzip', 'import median', 'p99', '× zod/mini', 'how'],
      r.coldStart.validation.map((row) => [
        row.name,
        kb(row.bytes),
        kb(row.gzipBytes),
        ms(row.cold?.importMs.median ?? Number.NaN),
        ms(row.cold?.importMs.p99 ?? Number.NaN),
        times(
          (row.cold?.importMs.median ?? Number.NaN) /
            (r.coldStart.validation[0]?.cold?.importMs.median ?? Number.NaN),
        ),
        row.note ?? '',
      ]),
    ),
  ];
  if (r.perRequest) {
    parts.push(
      '### 2. Per request, warm (500 requests each; bare calls and HTTP hop interleaved)',
      mdTable(
        [
          'operation',
          'request median',
          'p99',
          'bare median',
          'p99',
          '× bare (≤ 1.3)',
          'HTTP hop',
          '× bare without the hop',
          'bare calls',
          'met',
        ],
        r.perRequest.map((o) => [
          o.operation,
          ms(o.requestMs.median),
          ms(o.requestMs.p99),
          ms(o.bareMs.median),
          ms(o.bareMs.p99),
          times(o.requestMs.median / o.bareMs.median),
          ms(o.transportMs.median),
          times(withoutHop(o)),
          o.bareCalls.join(' → '),
          met(r.budgets, `${o.operation}: request / bare calls (median)`),
        ]),
      ),
      '### 3. DynamoDB work per request (capacity as DynamoDB Local reports it)',
      mdTable(
        [
          'operation',
          'request',
          'warm requests',
          'by operation',
          'RCU',
          'WCU',
          'cold-cache requests',
          'by operation',
          'met',
        ],
        r.perRequest.map((o) => {
          const figures = [
            'DynamoDB requests, warm',
            'DynamoDB requests, cold cache',
            'read units, warm',
            'write units, warm',
          ];
          const budgets = figures.map((f) => r.budgets.find((b) => b.figure === `${o.operation}: ${f}`));
          const by = (w: OperationFigures['warm']) =>
            Object.entries(w.byOperation)
              .map(([n, c]) => `${c} ${n}`)
              .join(', ');
          return [
            o.operation,
            o.description,
            `${o.warm.requests} (≤ ${budgets[0]?.limit})`,
            by(o.warm),
            `${o.warm.readUnits} (≤ ${budgets[2]?.limit})`,
            `${o.warm.writeUnits} (≤ ${budgets[3]?.limit})`,
            `${o.coldCache.requests} (≤ ${budgets[1]?.limit})`,
            by(o.coldCache),
            budgets.every((b) => b?.met) ? 'yes' : 'NO',
          ];
        }),
      ),
    );
  }
  if (r.coldAuthentication?.length) {
    parts.push(
      '### Authentication on an empty cache',
      mdTable(
        ['credential', 'operation', 'cold median', 'warm median', 'authentication'],
        r.coldAuthentication.map((a) => [
          a.credential,
          a.operation,
          ms(a.coldMs.median),
          ms(a.warmMs.median),
          ms(a.coldMs.median - a.warmMs.median),
        ]),
      ),
    );
  }
  const a = r.addRecipients;
  if (a) {
    const by = (w: AddRecipientsFigures['newRequest']) =>
      Object.entries(w.byOperation)
        .map(([n, c]) => `${c} ${n}`)
        .join(', ');
    parts.push(
      `### Add recipients: ${a.recipients} new embed recipients, then the same request again (medians over ${a.newMs.samples} runs)`,
      mdTable(
        [
          'request',
          'DynamoDB requests',
          'by operation',
          'write requests',
          'WCU billed (est.)',
          'time median',
          '× floor (≤ 1.5)',
        ],
        [
          [
            `${a.recipients} new (≤ 60 requests)`,
            a.newRequest.requests,
            by(a.newRequest),
            a.newRequest.writeRequests,
            a.billedWriteUnits,
            ms(a.newMs.median),
            times(a.newMs.median / a.bareWriteMs.median),
          ],
          [
            '↳ its reads / its writes / no call in flight',
            '',
            '',
            '',
            '',
            `${ms(a.readsMs.median)} / ${ms(a.writesMs.median)} / ${ms(a.outsideCallsMs.median)}`,
            '',
          ],
          [
            `floor: its ${a.itemsWritten} items, bare BatchWrite (25 per call, 4 in flight)`,
            a.bareWriteRequests,
            `${a.bareWriteRequests} BatchWriteItem`,
            a.bareWriteRequests,
            a.bareBilledWriteUnits,
            ms(a.bareWriteMs.median),
            '1.00×',
          ],
          [
            'reference: its own write calls, bare',
            a.sameCalls.length,
            Object.entries(Object.groupBy(a.sameCalls, (n) => n))
              .map(([n, l]) => `${l?.length} ${n}`)
              .join(', '),
            a.sameCalls.length,
            a.billedWriteUnits,
            ms(a.bareSameCallsMs.median),
            times(a.bareSameCallsMs.median / a.bareWriteMs.median),
          ],
          [
            'replay (≤ 13 requests, 0 writes)',
            a.replay.requests,
            by(a.replay),
            a.replay.writeRequests,
            0,
            ms(a.replayMs.median),
            '',
          ],
        ],
      ),
    );
  }
  parts.push(
    '### 4. Token verification, warm caches',
    mdTable(
      ['credential', 'median', 'p99', 'floor', 'floor median', 'RS256 signature alone', 'met (≤ 200 µs)'],
      r.tokens.map((t) => [
        t.kind,
        us(t.microseconds.median),
        us(t.microseconds.p99),
        t.floorName,
        us(t.floorMicroseconds.median),
        t.signatureMicroseconds ? us(t.signatureMicroseconds.median) : '',
        met(r.budgets, `verify ${t.kind}`),
      ]),
    ),
    '### Every budget of this run',
    mdTable(
      ['figure', 'value', 'target', 'kind', 'met'],
      r.budgets.map((b) => [
        b.figure,
        `${round(b.value, 3)} ${b.unit}`,
        `≤ ${round(b.limit, 3)} ${b.unit}`,
        b.deterministic ? 'deterministic' : 'timing',
        verdict(b),
      ]),
    ),
  );
  return parts.join('\n\n');
}

/** Replaces the figures between the markers of `file`; leaves the file alone when it has no markers. */
export async function updateBenchmarksDocument(file: string, results: RunResults): Promise<boolean> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  const start = text?.indexOf(START) ?? -1;
  const end = text?.indexOf(END) ?? -1;
  if (!text || start < 0 || end < start) return false;
  await writeFile(
    file,
    `${text.slice(0, start + START.length)}\n\n${renderFigures(results)}\n\n${text.slice(end)}`,
  );
  return true;
}
