import { readdirSync } from 'node:fs';
import {
  type Budget,
  bytesOverFloorOf,
  CRON_PACKAGES,
  importRatioOf,
  isScheduleWriter,
  met,
} from './budgets.ts';
import { type BundleFigures, beyondFloor, bundle } from './build.ts';
import { type ColdStartFigures, measureColdStarts } from './cold-start.ts';
import { type Bench, log, part, section } from './output.ts';
import { round } from './stats.ts';
import { kb, ms, type Table, table, times } from './table.ts';
import { checkValidationBundle, validationEntries } from './validation-choice.ts';

/** Item 1: each function's bundle and cold import, the floor's, and the request-validation choice. */

export interface ColdStartRow {
  name: string;
  bytes: number;
  gzipBytes: number;
  bytesOverFloor: number;
  cold: ColdStartFigures | undefined;
  /** Import median over the floor's (the floor constructs its client at import). */
  importRatio: number;
  /** Import median over the floor's code without the construction (the functions construct on first use). */
  importRatioUnconstructed: number;
  beyondFloor: { name: string; bytes: number }[];
  /** Bytes of the cron libraries (luxon, cron-parser, cronstrue) in the bundle. */
  cronBytes: number;
  note?: string;
}

const root = new URL('../', import.meta.url);
const entry = (path: string) => new URL(path, root).pathname;
/** Every function the stack deploys: one per route, the dispatcher, its coordinator and the purge. */
const functionNames = readdirSync(new URL('functions/', root))
  .filter((file) => file.endsWith('.ts'))
  .map((file) => file.slice(0, -'.ts'.length))
  .sort();

export async function coldStartSection(
  bench: Bench,
): Promise<{ functions: ColdStartRow[]; validation: ColdStartRow[] }> {
  section('Cold start: each function bundled as the CDK stack bundles it, imported in a fresh Node process');
  const validation = await validationEntries(`${bench.workDirectory}generated`);
  const entries: { name: string; entryPoint: string; group: string; note?: string }[] = [
    { name: 'floor', entryPoint: entry('bench/entries/floor.ts'), group: 'floor' },
    {
      name: 'floor, client not constructed',
      entryPoint: entry('bench/entries/floor-unconstructed.ts'),
      group: 'floor',
    },
    ...functionNames.map((operation) => ({
      name: operation,
      entryPoint: entry(`functions/${operation}.ts`),
      group: 'function',
    })),
    ...validation.map(({ name, entryPoint, note }) => ({ name, entryPoint, note, group: 'validation' })),
  ];
  const bundles = new Map<string, BundleFigures & { group: string; note?: string }>();
  for (const { name, entryPoint, group, note } of entries) {
    const figures = await part(bench, `bundle ${name}`, () =>
      bundle(entryPoint, `${bench.workDirectory}bundles/${name.replace(/[^\w-]+/g, '-')}`),
    );
    if (figures) bundles.set(name, { ...figures, group, note });
  }
  for (const [name, figures] of bundles)
    if (figures.group === 'validation')
      await part(bench, `validation bundle ${name}`, () => checkValidationBundle(figures.file));

  // First in the run: nothing else (DynamoDB Local's JVM above all) competes for the CPU yet.
  const cold =
    (await part(bench, 'cold starts', () =>
      measureColdStarts(
        [...bundles].map(([name, { file }]) => ({ name, file })),
        bench.settings.imports,
      ),
    )) ?? new Map<string, ColdStartFigures>();

  const floor = bundles.get('floor');
  const floorMs = cold.get('floor')?.importMs.median ?? Number.NaN;
  const unconstructedMs = cold.get('floor, client not constructed')?.importMs.median ?? Number.NaN;
  const rows = [...bundles].map(([name, figures]): ColdStartRow & { group: string } => {
    const importMs = cold.get(name)?.importMs.median ?? Number.NaN;
    return {
      name,
      group: figures.group,
      bytes: figures.bytes,
      gzipBytes: figures.gzipBytes,
      bytesOverFloor: floor ? figures.bytes - floor.bytes : Number.NaN,
      cold: cold.get(name),
      importRatio: round(importMs / floorMs, 3),
      importRatioUnconstructed: round(importMs / unconstructedMs, 3),
      beyondFloor: floor && figures.group === 'function' ? beyondFloor(figures, floor) : [],
      cronBytes: figures.byPackage
        .filter((entry) => CRON_PACKAGES.includes(entry.name))
        .reduce((sum, entry) => sum + entry.bytes, 0),
      ...(figures.note && { note: figures.note }),
    };
  });
  const functions = rows.filter((row) => row.group !== 'validation');
  const choices = rows.filter((row) => row.group === 'validation');

  for (const row of functions.filter((r) => r.group === 'function')) {
    if (floor)
      bench.budgets.atMost(
        `${row.name}: bundle bytes`,
        row.bytes,
        floor.bytes + bytesOverFloorOf(row.name),
        'bytes',
        true,
      );
    // Only the schedule writers compute a schedule's reading and instants.
    if (!isScheduleWriter(row.name))
      bench.budgets.atMost(`${row.name}: cron library bytes`, row.cronBytes, 0, 'bytes', true);
    bench.budgets.atMost(`${row.name}: import / floor`, row.importRatio, importRatioOf(row.name), '×', false);
  }
  log(table(coldStartTable(functions, bench.budgets.all)));
  for (const line of beyondFloorLines(functions)) log(`\n${line}`);

  section(
    'Request validation: our zod/mini middleware or @middy/validator (minimal handlers, same esbuild settings)',
  );
  log(table(validationTable(choices)));
  return {
    functions: functions.map(({ group: _group, ...row }) => row),
    validation: choices.map(({ group: _group, ...row }) => row),
  };
}

export function coldStartTable(functions: ColdStartRow[], budgets: Budget[]): Table {
  return {
    headers: [
      'bundle',
      'bytes',
      'gzip',
      'over floor (≤ 100 KB; send-now, retry, coordinator 125; schedule writers 250)',
      'import median (20)',
      'p99',
      '× floor (≤ 1.25; schedule writers 1.4)',
      '× floor w/o client',
      'bytes met',
      'import met',
    ],
    rows: functions.map((row) => {
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
        isFloor ? '' : met(budgets, `${row.name}: bundle bytes`),
        isFloor ? '' : met(budgets, `${row.name}: import / floor`),
      ];
    }),
  };
}

/** What each function over its bytes budget holds that the floor does not. */
export const beyondFloorLines = (functions: ColdStartRow[]) =>
  functions
    .filter((row) => row.bytesOverFloor > bytesOverFloorOf(row.name))
    .map(
      (row) =>
        `${row.name} holds beyond the floor: ${row.beyondFloor.map((p) => `${p.name} ${kb(p.bytes)}`).join(', ')}`,
    );

export function validationTable(choices: ColdStartRow[]): Table {
  const zodMs = choices[0]?.cold?.importMs.median ?? Number.NaN;
  return {
    headers: ['validation', 'bytes', 'gzip', 'import median', 'p99', '× zod/mini', 'how'],
    rows: choices.map((row) => [
      row.name,
      kb(row.bytes),
      kb(row.gzipBytes),
      ms(row.cold?.importMs.median ?? Number.NaN),
      ms(row.cold?.importMs.p99 ?? Number.NaN),
      times((row.cold?.importMs.median ?? Number.NaN) / zodMs),
      row.note ?? '',
    ]),
  };
}
