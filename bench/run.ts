import './quiet.ts';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { routes } from '#lib/routes';
import { Budgets, budgetsTable } from './budgets.ts';
import { benchFixture, generateKeys } from './fixture.ts';
import { type ListWalkResults, listWalksSection } from './list-walks.ts';
import { startLocalStack } from './local-stack.ts';
import { updateBenchmarksDocument } from './markdown.ts';
import { type Bench, log, part, section, startProgress } from './output.ts';
import { coldStartSection } from './section-cold-start.ts';
import { type CostResults, costSection } from './section-cost.ts';
import { type HistoryFigures, historySection } from './section-history.ts';
import { type RequestResults, requestsSection } from './section-requests.ts';
import { tokensSection } from './section-tokens.ts';
import { round } from './stats.ts';
import { table } from './table.ts';

/**
 * `npm run bench`: cold start, per-request overhead, DynamoDB work and token verification, each next
 * to its floor from the same run; prints the tables and writes .local/bench/results.json. With
 * `--write` (`npm run bench -- --write`) a full run writes bench/results.json and the figures in
 * BENCHMARKS.md instead, the tracked copies: the tree changes only when asked.
 * `npm run bench:smoke` (or `npm run bench -- --smoke`): one iteration of everything, for CI; fails
 * on a missed deterministic budget (bytes, DynamoDB requests, capacity) or an error, never on a timing.
 */

const smoke = process.argv.includes('--smoke');
// A smoke run's single samples are no figures to keep: it never writes the tracked files.
const write = process.argv.includes('--write') && !smoke;
const root = new URL('../', import.meta.url);
const workDirectory = new URL('.local/bench/', root).pathname;
const resultsFile = write
  ? new URL('bench/results.json', root).pathname
  : `${workDirectory}${smoke ? 'results-smoke.json' : 'results.json'}`;

async function main(): Promise<number> {
  const startedAt = Date.now();
  const stopProgress = startProgress(startedAt);
  const loadBefore = loadavg();
  const bench: Bench = {
    smoke,
    settings: smoke
      ? { imports: 1, requests: 1, warmup: 1, coldAuthSamples: 1, recipientRuns: 1, tokenBatches: 1 }
      : { imports: 20, requests: 500, warmup: 50, coldAuthSamples: 5, recipientRuns: 7, tokenBatches: 20 },
    available: routes.map((r) => r.operation).filter((op) => existsSync(new URL(`functions/${op}.ts`, root))),
    budgets: new Budgets(),
    errors: [],
    workDirectory,
  };
  log(
    `# Benchmarks (${smoke ? 'smoke: one iteration; only deterministic budgets can fail it' : 'full run'})`,
  );
  log(
    `Node ${process.versions.node}, ${cpus().length} × ${cpus()[0]?.model}, load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')}`,
  );
  const skipped = routes
    .filter((route) => !bench.available.includes(route.operation))
    .map((route) => ({
      operation: route.operation,
      note: `functions/${route.operation}.ts does not exist yet`,
    }));
  for (const { note } of skipped) log(`skipped: ${note}`);

  const coldStart = await coldStartSection(bench);
  const keys = generateKeys();
  const tokens = await tokensSection(bench, keys);
  let requests: RequestResults | undefined;
  let cost: CostResults | undefined;
  let history: HistoryFigures | undefined;
  let lists: ListWalkResults | undefined;
  const stack = await part(bench, 'DynamoDB Local', () => startLocalStack(benchFixture(keys)));
  if (stack) {
    try {
      requests = await requestsSection(bench, stack, keys);
      if (bench.available.includes('add-recipients')) cost = await costSection(bench, stack);
      history = await historySection(bench, stack);
      lists = await listWalksSection(bench, stack);
    } finally {
      await stack.close();
    }
  }

  section('Budgets');
  const { budgets } = bench;
  log(table(budgetsTable(budgets.all)));

  const results = {
    mode: smoke ? 'smoke' : 'full',
    startedAt: new Date(startedAt).toISOString(),
    durationSeconds: round((Date.now() - startedAt) / 1000, 1),
    node: process.versions.node,
    machine: { cpus: cpus().length, model: cpus()[0]?.model, loadBefore, loadAfter: loadavg() },
    settings: bench.settings,
    skipped,
    coldStart,
    tokens,
    ...requests,
    cost,
    history,
    lists,
    budgets: budgets.all,
    errors: bench.errors,
  };
  await mkdir(workDirectory, { recursive: true });
  await writeFile(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
  stopProgress();
  log(`\nWrote ${resultsFile}. The run took ${results.durationSeconds} s.`);
  const document = new URL('BENCHMARKS.md', root).pathname;
  if (write && (await updateBenchmarksDocument(document, results)))
    log(`Updated the figures in ${document}.`);
  if (!write && !smoke) log('BENCHMARKS.md left as it is; `npm run bench -- --write` updates it.');

  for (const figure of budgets.unneededWaivers())
    log(`NOTE: "${figure}" now meets its target; remove it from knownMisses in bench/budgets.ts.`);
  const failures = budgets.failures();
  for (const f of failures)
    log(`BUDGET MISSED: ${f.figure}: ${round(f.value, 3)} > ${round(f.limit, 3)} ${f.unit}`);
  for (const error of bench.errors) log(`FAILED: ${error}`);
  return failures.length > 0 || bench.errors.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
