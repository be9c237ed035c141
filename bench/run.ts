import './quiet.ts';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { type Figure, Figures } from './budgets.ts';
import { costSection } from './cost.ts';
import { dispatchSection } from './dispatch.ts';
import { benchFixture, generateKeys } from './fixture.ts';
import { historySection } from './history.ts';
import { listWalksSection } from './list-walks.ts';
import { perRequestSection } from './per-request.ts';
import { type Bench, log, part, section } from './report.ts';
import { coldStartSection } from './section-cold-start.ts';
import { selfServiceSection } from './self-service.ts';
import { startStack } from './stack.ts';
import { tokensSection } from './tokens.ts';
import { webhooksSection } from './webhooks.ts';

/**
 * `npm run bench`: every section (BENCHMARKS.md), its figures printed as Markdown and written to
 * .local/bench/results.json. `--smoke` (`npm run bench:smoke`): one iteration of everything, for CI;
 * fails on an error or a missed deterministic budget (bytes, DynamoDB requests, capacity), never a timing.
 */

const smoke = process.argv.includes('--smoke');
const workDirectory = new URL('../.local/bench/', import.meta.url).pathname;
const settings = smoke
  ? { imports: 1, requests: 1, warmup: 1, recipientRuns: 1, tokenBatches: 1 }
  : { imports: 20, requests: 500, warmup: 50, recipientRuns: 7, tokenBatches: 20 };

const startedAt = new Date();
const bench: Bench = { smoke, figures: new Figures(), errors: [], workDirectory };
const { figures, errors } = bench;
const machine = `${cpus().length} × ${cpus()[0]?.model}, load average ${loadavg().map((l) => l.toFixed(2))}`;
const mode = smoke ? 'smoke: one iteration; only deterministic budgets can fail it' : 'full run';
log(
  `Run of ${startedAt.toISOString().slice(0, 16)} UTC (${mode}): Node ${process.versions.node}, ${machine}.`,
);

await coldStartSection(bench, settings.imports);
const keys = generateKeys();
await tokensSection(bench, keys, settings.tokenBatches);
const stack = await part(bench, 'DynamoDB Local', () => startStack(benchFixture(keys)));
try {
  if (stack) {
    await perRequestSection(bench, stack, keys, settings);
    await costSection(bench, stack, settings.recipientRuns);
    await dispatchSection(bench);
    await historySection(bench, stack);
    await listWalksSection(bench, stack);
    await selfServiceSection(bench, stack, keys);
    await webhooksSection(bench, stack, keys);
  }
} finally {
  await stack?.close();
}
await section(bench, 'Budgets');
const budgets = figures.all.filter((f) => f.limit !== undefined);
const count = (which: (budget: Figure) => unknown) => budgets.filter(which).length;
const missed = count((b) => !b.met && !b.deterministic);
log(
  `${budgets.length} budgets: ${count((b) => b.met)} met, ${missed} timings missed (reported, not gating).`,
);
const durationSeconds = Math.round((Date.now() - startedAt.getTime()) / 1000);
log(`\nThe run took ${durationSeconds} s.`);
const results = { mode, startedAt, node: process.versions.node, machine, settings, durationSeconds };
await mkdir(workDirectory, { recursive: true });
await writeFile(
  `${workDirectory}results${smoke ? '-smoke' : ''}.json`,
  `${JSON.stringify({ ...results, figures: figures.all, errors }, null, 2)}\n`,
);
for (const f of figures.failures())
  console.log(`BUDGET MISSED: ${f.figure}: ${f.value} > ${f.limit} ${f.unit}`);
for (const error of errors) console.log(`FAILED: ${error}`);
process.exit(figures.failures().length > 0 || errors.length > 0 ? 1 : 0);
