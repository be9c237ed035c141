import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { bundleAsDeployed } from '#test/support/bundle';
import { bytesOverFloorOf, CRON_PACKAGES, importRatioOf, isScheduleWriter } from './budgets.ts';
import { type Bench, kb, median, ms, note, part, round, section } from './report.ts';

/**
 * Each function bundled exactly as the CDK stack bundles it (cdk/bundling.ts), and imported in fresh
 * Node processes as Lambda's init does, next to the floor: a DynamoDB document client alone.
 */

const root = new URL('../', import.meta.url);
const probe = new URL('import-probe.mjs', import.meta.url).pathname;
const run = promisify(execFile);

/** Bundles an entry to `<outDir>/index.mjs`, as NodejsFunction names an ESM bundle. */
async function bundle(entry: string, outDir: string) {
  await mkdir(outDir, { recursive: true });
  const file = `${outDir}/index.mjs`;
  const { code, parts } = await bundleAsDeployed(new URL(entry, root).pathname, file);
  await writeFile(file, code.contents);
  const [bytes, gzipBytes] = [code.contents.length, gzipSync(code.contents, { level: 9 }).length];
  return { file, bytes, gzipBytes, parts, importMs: [] as number[] };
}

/**
 * `await import(bundle)` timed in a fresh Node process (the Node running the bench: Node 24 under npm),
 * `iterations` times per bundle, in rounds over all bundles so that a burst of load hits all alike.
 */
async function importTimes(bundles: Awaited<ReturnType<typeof bundle>>[], iterations: number) {
  // Nothing from the caller's environment may change how Node loads the bundle.
  const { NODE_OPTIONS: _options, ...env } = process.env;
  for (let round = 0; round < iterations; round++)
    for (const b of [...bundles.slice(round % bundles.length), ...bundles.slice(0, round % bundles.length)]) {
      const { stdout } = await run(process.execPath, [probe, pathToFileURL(b.file).href], { env });
      b.importMs.push(Number(stdout));
    }
}

export async function coldStartSection(bench: Bench, iterations: number) {
  const title =
    '1. Cold start: each function bundled as the CDK stack bundles it, imported in fresh processes';
  await section(bench, title);
  // Every function the stack deploys: one per route, the dispatcher, its coordinator, the purge, the
  // webhook relay and sender.
  const names = readdirSync(new URL('functions/', root)).flatMap(
    (file) => /^(.*)\.ts$/.exec(file)?.[1] ?? [],
  );
  const bundles: ({ name: string } & Awaited<ReturnType<typeof bundle>>)[] = [];
  for (const name of ['floor', ...names.sort()]) {
    const entry = name === 'floor' ? 'bench/entries/floor.ts' : `functions/${name}.ts`;
    const outDir = `${bench.workDirectory}bundles/${name}`;
    const bundled = await part(bench, `bundle ${name}`, () => bundle(entry, outDir));
    if (bundled) bundles.push({ name, ...bundled });
  }
  // First in the run: nothing else (DynamoDB Local's JVM above all) competes for the CPU yet.
  await part(bench, 'cold starts', () => importTimes(bundles, iterations));
  const floor = bundles.find((b) => b.name === 'floor');
  const floorImport = median(floor?.importMs ?? []);
  for (const b of bundles) {
    const { show, gate, timing } = bench.figures.about(b.name);
    const [importMs, overFloor] = [median(b.importMs), b.bytes - (floor?.bytes ?? Number.NaN)];
    if (b !== floor) gate('bundle bytes', b.bytes, (floor?.bytes ?? 0) + bytesOverFloorOf(b.name), 'bytes');
    else show('bundle bytes', b.bytes, 'bytes');
    show('gzip', kb(b.gzipBytes));
    show('over floor', kb(overFloor));
    const cronBytes = CRON_PACKAGES.reduce((sum, name) => sum + (b.parts.get(name) ?? 0), 0);
    if (b !== floor && !isScheduleWriter(b.name)) gate('cron library bytes', cronBytes, 0, 'bytes');
    show(`import median (${iterations})`, ms(importMs));
    if (b === floor || !floor) continue;
    timing('import / floor', round(importMs / floorImport, 3), importRatioOf(b.name));
    if (overFloor <= bytesOverFloorOf(b.name)) continue;
    const beyond = [...b.parts].map(([name, bytes]) => [name, bytes - (floor.parts.get(name) ?? 0)] as const);
    const largest = beyond.sort((x, y) => y[1] - x[1]).slice(0, 6);
    note(`${b.name} holds beyond the floor: ${largest.map(([name, n]) => `${name} ${kb(n)}`).join(', ')}`);
  }
}
