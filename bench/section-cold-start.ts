import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { bundlingSettings } from '../cdk/bundling.ts';
import { bytesOverFloorOf, CRON_PACKAGES, importRatioOf, isScheduleWriter } from './budgets.ts';
import { type Bench, note, part, section } from './report.ts';
import { kb, ms, round, summarize, times } from './stats.ts';

/**
 * Each function bundled exactly as the CDK stack bundles it (cdk/bundling.ts), and imported in fresh
 * Node processes as Lambda's init does, next to the floor: a DynamoDB document client alone, built at
 * import, and the same code without building it (the functions build theirs on first use).
 */

const root = new URL('../', import.meta.url);
/** Every function the stack deploys: one per route, the dispatcher, its coordinator and the purge. */
const functionNames = readdirSync(new URL('functions/', root))
  .filter((file) => file.endsWith('.ts'))
  .map((file) => file.slice(0, -'.ts'.length))
  .sort();
const probe = new URL('import-probe.mjs', import.meta.url).pathname;
const run = promisify(execFile);

/** Bundles an entry to `<outDir>/index.mjs`, as NodejsFunction names an ESM bundle; bytes per package. */
async function bundle(entryPoint: string, outDir: string) {
  await mkdir(outDir, { recursive: true });
  const outfile = `${outDir}/index.mjs`;
  const { externalModules, banner, mainFields, ...settings } = bundlingSettings;
  const { metafile } = await build({
    ...settings,
    mainFields: [...mainFields],
    banner: { js: banner },
    external: [...externalModules],
    bundle: true,
    entryPoints: [entryPoint],
    outfile,
    metafile: true,
    logLevel: 'error',
  });
  const code = await readFile(outfile);
  const byPackage = new Map<string, number>();
  const inputs = Object.values(metafile.outputs).find((output) => output.entryPoint)?.inputs ?? {};
  for (const [input, { bytesInOutput }] of Object.entries(inputs)) {
    // `node_modules/@aws-sdk/core/...` → `@aws-sdk/core`; our own files → their directory (`lib/auth`).
    const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? input.replace(/\/[^/]*$/, '');
    byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
  }
  return { file: outfile, bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length, byPackage };
}

/**
 * `await import(bundle)` timed in a fresh Node process (the Node running the bench: Node 24 under npm),
 * `iterations` times per bundle, in rounds over all bundles so that a burst of load hits all alike.
 */
async function importTimes(files: string[], iterations: number) {
  const samples = files.map(() => ({ importMs: [] as number[], processMs: [] as number[] }));
  // Nothing from the caller's environment may change how Node loads the bundle.
  const { NODE_OPTIONS: _options, ...env } = process.env;
  for (let round = 0; round < iterations; round++)
    for (let i = 0; i < files.length; i++) {
      const k = (i + round) % files.length;
      const { stdout } = await run(process.execPath, [probe, pathToFileURL(files[k] ?? '').href], { env });
      // `processMs`: from the process's start to the import's end, Node's own start-up included.
      const { importMs, processMs } = JSON.parse(stdout);
      samples[k]?.importMs.push(importMs);
      samples[k]?.processMs.push(processMs);
    }
  return samples;
}

export async function coldStartSection(bench: Bench, iterations: number) {
  section(
    bench,
    '1. Cold start: each function bundled as the CDK stack bundles it, imported in fresh processes',
    true,
  );
  const entries = new Map([
    ['floor', 'bench/entries/floor.ts'],
    ['floor, client not constructed', 'bench/entries/floor-unconstructed.ts'],
    ...functionNames.map((name) => [name, `functions/${name}.ts`] as const),
  ]);
  const bundles = [];
  for (const [name, entry] of entries) {
    const outDir = `${bench.workDirectory}bundles/${name.replace(/[^\w-]+/g, '-')}`;
    const figures = await part(bench, `bundle ${name}`, () => bundle(new URL(entry, root).pathname, outDir));
    if (figures) bundles.push({ name, ...figures });
  }
  // First in the run: nothing else (DynamoDB Local's JVM above all) competes for the CPU yet.
  const files = bundles.map((b) => b.file);
  const samples = (await part(bench, 'cold starts', () => importTimes(files, iterations))) ?? [];
  const measured = bundles.map((b, k) => ({
    ...b,
    importMs: summarize(samples[k]?.importMs ?? []),
    processMs: summarize(samples[k]?.processMs ?? []),
  }));
  const [floor, unconstructed] = ['floor', 'floor, client not constructed'].map((n) =>
    measured.find((b) => b.name === n),
  );
  for (const b of measured) {
    const { show, gate, timing } = bench.figures.about(b.name);
    const isFunction = !b.name.startsWith('floor');
    const overFloor = b.bytes - (floor?.bytes ?? Number.NaN);
    if (isFunction) gate('bundle bytes', b.bytes, (floor?.bytes ?? 0) + bytesOverFloorOf(b.name), 'bytes');
    else show('bundle bytes', b.bytes, 'bytes');
    show('gzip', kb(b.gzipBytes));
    show('over floor', kb(overFloor));
    // Only the schedule writers compute a schedule's reading and instants.
    const cronBytes = CRON_PACKAGES.reduce((sum, name) => sum + (b.byPackage.get(name) ?? 0), 0);
    if (isFunction && !isScheduleWriter(b.name)) gate('cron library bytes', cronBytes, 0, 'bytes');
    show(`import median (${iterations})`, ms(b.importMs.median));
    show('import p99', ms(b.importMs.p99));
    show('process median', ms(b.processMs.median));
    if (!isFunction || !floor || !unconstructed) continue;
    timing('import / floor', round(b.importMs.median / floor.importMs.median, 3), importRatioOf(b.name));
    // The construction the functions put off: paid by their first request, not by their import.
    show('× floor w/o client', times(b.importMs.median / unconstructed.importMs.median));
    if (overFloor <= bytesOverFloorOf(b.name)) continue;
    const beyond = [...b.byPackage].map(
      ([name, bytes]) => [name, bytes - (floor.byPackage.get(name) ?? 0)] as const,
    );
    const largest = beyond.sort((x, y) => y[1] - x[1]).slice(0, 6);
    note(
      `${b.name} holds beyond the floor: ${largest.map(([name, bytes]) => `${name} ${kb(bytes)}`).join(', ')}`,
    );
  }
}
