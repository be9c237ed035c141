import './quiet.ts';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { routes } from '#lib/routes';
import { addRecipientsSection } from './add-recipients.ts';
import { type Figure, Figures } from './budgets.ts';
import { costSection } from './cost.ts';
import { deliveriesSection } from './deliveries.ts';
import { dispatchSection } from './dispatch.ts';
import { benchFixture, generateKeys } from './fixture.ts';
import { historySection } from './history.ts';
import { listWalksSection } from './list-walks.ts';
import { perRequestSection } from './per-request.ts';
import { type Bench, log, part, printed, section, startProgress } from './report.ts';
import { coldStartSection } from './section-cold-start.ts';
import { startStack } from './stack.ts';
import { tokensSection } from './tokens.ts';

/**
 * `npm run bench`: cold start, per-request overhead, DynamoDB work and token verification, each next
 * to its floor from the same run, and the scenarios at scale; prints the figures as Markdown and writes
 * .local/bench/results.json. With `--write` (`npm run bench -- --write`) a full run writes
 * bench/results.json and the figures in BENCHMARKS.md instead, the tracked copies: the tree changes
 * only when asked. `npm run bench:smoke` (or `--smoke`): one iteration of everything, for CI; fails on
 * a missed deterministic budget (bytes, DynamoDB requests, capacity) or an error, never on a timing.
 */

const smoke = process.argv.includes('--smoke');
// A smoke run's single samples are no figures to keep: it never writes the tracked files.
const write = process.argv.includes('--write') && !smoke;
const root = new URL('../', import.meta.url);
const workDirectory = new URL('.local/bench/', root).pathname;
const settings = smoke
  ? { imports: 1, requests: 1, warmup: 1, coldAuthSamples: 1, recipientRuns: 1, tokenBatches: 1 }
  : { imports: 20, requests: 500, warmup: 50, coldAuthSamples: 5, recipientRuns: 7, tokenBatches: 20 };

async function main(): Promise<number> {
  const startedAt = new Date();
  const stopProgress = startProgress(startedAt.getTime());
  const exists = (operation: string) => existsSync(new URL(`functions/${operation}.ts`, root));
  const available = routes.map((r) => r.operation).filter(exists);
  const bench: Bench = { smoke, available, figures: new Figures(), errors: [], workDirectory };
  const load = loadavg().map((l) => l.toFixed(2));
  const machine = `${cpus().length} × ${cpus()[0]?.model}, load average ${load.join(' ')}`;
  const mode = smoke ? 'smoke: one iteration; only deterministic budgets can fail it' : 'full run';
  const at = startedAt.toISOString().slice(0, 16).replace('T', ' ');
  log(`Run of ${at} UTC (${mode}): Node ${process.versions.node}, ${machine}.`);
  for (const { operation } of routes.filter((r) => !exists(r.operation)))
    log(`Skipped: functions/${operation}.ts does not exist yet.`);

  await coldStartSection(bench, settings.imports);
  const keys = generateKeys();
  await tokensSection(bench, keys, settings.tokenBatches);
  const stack = await part(bench, 'DynamoDB Local', () => startStack(benchFixture(keys)));
  if (stack) {
    try {
      await perRequestSection(bench, stack, keys, settings);
      await addRecipientsSection(bench, stack, settings.recipientRuns);
      await dispatchSection(bench);
      await deliveriesSection(bench);
      await costSection(bench, stack);
      await historySection(bench, stack);
      await listWalksSection(bench, stack);
    } finally {
      await stack.close();
    }
  }
  section(bench, 'Budgets');
  const budgets = bench.figures.budgets();
  const count = (what: string, which: (b: Figure) => boolean | undefined) =>
    `${budgets.filter(which).length} ${what}`;
  const timings = count('timings missed (reported, not gating)', (b) => !b.met && !b.deterministic);
  log(
    `${budgets.length} budgets: ${count('met', (b) => b.met)}, ${count('known misses', (b) => b.waived)}, ${timings}.`,
  );
  stopProgress();
  const durationSeconds = Math.round((Date.now() - startedAt.getTime()) / 1000);
  log(`\nThe run took ${durationSeconds} s.`);
  const results = { mode, startedAt, node: process.versions.node, machine, settings, durationSeconds };
  const file = write
    ? new URL('bench/results.json', root)
    : `${workDirectory}results${smoke ? '-smoke' : ''}.json`;
  await mkdir(workDirectory, { recursive: true });
  await writeFile(
    file,
    `${JSON.stringify({ ...results, figures: bench.figures.all, errors: bench.errors }, null, 2)}\n`,
  );
  if (write) await writeFigures(new URL('BENCHMARKS.md', root));

  for (const figure of bench.figures.unneededWaivers())
    console.log(`NOTE: "${figure}" now meets its target; remove it from knownMisses in bench/budgets.ts.`);
  const failures = bench.figures.failures();
  for (const f of failures) console.log(`BUDGET MISSED: ${f.figure}: ${f.value} > ${f.limit} ${f.unit}`);
  for (const error of bench.errors) console.log(`FAILED: ${error}`);
  return failures.length > 0 || bench.errors.length > 0 ? 1 : 0;
}

/** What this run printed replaces the figures between BENCHMARKS.md's markers; the prose around stays. */
async function writeFigures(file: URL): Promise<void> {
  const [start, end] = ['<!-- bench:figures:start -->', '<!-- bench:figures:end -->'];
  const text = await readFile(file, 'utf8');
  const [from, to] = [text.indexOf(start), text.indexOf(end)];
  if (from < 0 || to < from) throw new Error(`BENCHMARKS.md has no ${start} … ${end} markers`);
  await writeFile(
    file,
    `${text.slice(0, from + start.length)}\n\n${printed.join('\n').trim()}\n\n${text.slice(to)}`,
  );
  console.log('Updated the figures in BENCHMARKS.md.');
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
