import { execFile } from 'node:child_process';
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
 * Node processes as Lambda's init does, next to the floor: a DynamoDB document client alone.
 */

const root = new URL('../', import.meta.url);
const run = promisify(execFile);

/** Bundles an entry to `<outDir>/index.mjs`, as NodejsFunction names an ESM bundle; bytes per package. */
async function bundle(entryPoint: string, outDir: string) {
  await mkdir(outDir, { recursive: true });
  const file = `${outDir}/index.mjs`;
  const { externalModules, banner, mainFields, ...settings } = bundlingSettings;
  const { metafile } = await build({
    ...settings,
    mainFields: [...mainFields],
    banner: { js: banner },
    external: [...externalModules],
    bundle: true,
    entryPoints: [entryPoint],
    outfile: file,
    metafile: true,
    logLevel: 'error',
  });
  const code = await readFile(file);
  const byPackage = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(
    Object.values(metafile.outputs).find((o) => o.entryPoint)?.inputs ?? {},
  )) {
    // `node_modules/@aws-sdk/core/...` → `@aws-sdk/core`; our own files → their directory (`lib/auth`).
    const name =
      /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? input.split('/').slice(0, -1).join('/');
    byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
  }
  return { file, bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length, byPackage };
}

/**
 * Imports each bundle `iterations` times, each in a fresh Node process (the Node running the bench:
 * Node 24 under npm), in rounds over all bundles, so that a burst of load hits every bundle alike.
 */
async function importTimes(files: Map<string, string>, iterations: number): Promise<Map<string, number[]>> {
  const samples = new Map([...files.keys()].map((name) => [name, [] as number[]]));
  // Nothing from the caller's environment may change how Node loads the bundle.
  const { NODE_OPTIONS: _options, ...env } = process.env;
  const probe = new URL('import-probe.mjs', import.meta.url).pathname;
  const names = [...files.keys()];
  for (let round = 0; round < iterations; round++)
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length] as string;
      const { stdout } = await run(process.execPath, [probe, pathToFileURL(files.get(name) as string).href], {
        env,
      });
      samples.get(name)?.push(JSON.parse(stdout).importMs);
    }
  return samples;
}

export async function coldStartSection(bench: Bench, iterations: number) {
  section(
    bench,
    '1. Cold start: each function bundled as the CDK stack bundles it, imported in fresh Node processes',
    {
      grid: true,
    },
  );
  const entries: [string, string][] = [
    ['floor', 'bench/entries/floor.ts'],
    // The functions build their client on first use: the difference is paid by the first request.
    ['floor, client not constructed', 'bench/entries/floor-unconstructed.ts'],
    ...bench.available.map((operation): [string, string] => [operation, `functions/${operation}.ts`]),
  ];
  const bundles = new Map<string, Awaited<ReturnType<typeof bundle>>>();
  for (const [name, entry] of entries) {
    const outDir = `${bench.workDirectory}bundles/${name.replace(/[^\w-]+/g, '-')}`;
    const figures = await part(bench, `bundle ${name}`, () => bundle(new URL(entry, root).pathname, outDir));
    if (figures) bundles.set(name, figures);
  }
  // First in the run: nothing else (DynamoDB Local's JVM above all) competes for the CPU yet.
  const files = new Map([...bundles].map(([name, { file }]) => [name, file]));
  const imports = (await part(bench, 'cold starts', () => importTimes(files, iterations))) ?? new Map();
  const importMs = (name: string) => summarize(imports.get(name) ?? []);
  const ratio = (name: string, to: string) => round(importMs(name).median / importMs(to).median, 3);
  const floor = bundles.get('floor');
  const { budgets } = bench;
  for (const [name, b] of bundles) {
    const overFloor = b.bytes - (floor?.bytes ?? Number.NaN);
    if (name.startsWith('floor')) budgets.show(`${name}: bundle bytes`, b.bytes, 'bytes');
    else
      budgets.gate(`${name}: bundle bytes`, b.bytes, (floor?.bytes ?? 0) + bytesOverFloorOf(name), 'bytes');
    budgets.show(`${name}: gzip`, kb(b.gzipBytes));
    budgets.show(`${name}: over floor`, kb(overFloor));
    // Only the schedule writers compute a schedule's reading and instants.
    const cronBytes = CRON_PACKAGES.reduce((sum, p) => sum + (b.byPackage.get(p) ?? 0), 0);
    if (!name.startsWith('floor') && !isScheduleWriter(name))
      budgets.gate(`${name}: cron library bytes`, cronBytes, 0, 'bytes');
    budgets.show(`${name}: import median (${iterations})`, ms(importMs(name).median));
    budgets.show(`${name}: import p99`, ms(importMs(name).p99));
    if (!name.startsWith('floor')) {
      budgets.timing(`${name}: import / floor`, ratio(name, 'floor'), importRatioOf(name));
      budgets.show(`${name}: × floor w/o client`, times(ratio(name, 'floor, client not constructed')));
    }
    if (floor && overFloor > bytesOverFloorOf(name) && !name.startsWith('floor')) {
      const beyond = [...b.byPackage]
        .map(([p, bytes]) => [p, bytes - (floor.byPackage.get(p) ?? 0)] as const)
        .filter(([, bytes]) => bytes > 512)
        .sort((x, y) => y[1] - x[1])
        .slice(0, 6);
      note(`${name} holds beyond the floor: ${beyond.map(([p, n]) => `${p} ${kb(n)}`).join(', ')}`);
    }
  }
  return {
    bundles: Object.fromEntries(
      [...bundles].map(([name, b]) => [
        name,
        { bytes: b.bytes, gzipBytes: b.gzipBytes, importMs: importMs(name) },
      ]),
    ),
  };
}
