import { readFile, writeFile } from 'node:fs/promises';
import { type Budget, budgetsTable } from './budgets.ts';
import { type ListWalkResults, recipientOnDashboardTable, walksTable } from './list-walks.ts';
import {
  beyondFloorLines,
  type ColdStartRow,
  coldStartTable,
  validationTable,
} from './section-cold-start.ts';
import { type CostResults, concurrencyTable, sizesTable } from './section-cost.ts';
import {
  addRecipientsTable,
  coldAuthenticationTable,
  dispatchTable,
  dynamoWorkTable,
  perRequestTable,
  type RequestResults,
  sendNowTable,
} from './section-requests.ts';
import { tokensTable } from './section-tokens.ts';
import type { Table } from './table.ts';
import type { TokenFigures } from './tokens.ts';

/**
 * Renders a full run's figures as the "Latest figures" part of BENCHMARKS.md, between its markers, so
 * that the document always shows the numbers of the last `npm run bench`. The prose around is not touched.
 */

export interface RunResults extends Partial<RequestResults> {
  startedAt: string;
  durationSeconds: number;
  node: string;
  machine: { cpus: number; model?: string; loadBefore: number[] };
  skipped: { operation: string; note: string }[];
  coldStart: { functions: ColdStartRow[]; validation: ColdStartRow[] };
  tokens: TokenFigures[];
  budgets: Budget[];
  cost?: CostResults;
  lists?: ListWalkResults;
}

const START = '<!-- bench:figures:start -->';
const END = '<!-- bench:figures:end -->';

function mdTable({ headers, rows }: Table): string {
  const line = (cells: (string | number)[]) =>
    `| ${cells.map((cell) => String(cell).replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

function renderFigures(r: RunResults): string {
  const parts: string[] = [
    `Run of ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC: Node ${r.node}, ${r.machine.cpus} × ${r.machine.model}, ` +
      `load average ${r.machine.loadBefore.map((l) => l.toFixed(2)).join(' ')} at the start, ${r.durationSeconds} s.` +
      (r.skipped.length ? ` Skipped: ${r.skipped.map((s) => s.note).join('; ')}.` : ''),
    '### 1. Cold start',
    mdTable(coldStartTable(r.coldStart.functions, r.budgets)),
    ...beyondFloorLines(r.coldStart.functions).map((line) => `- ${line}.`),
    '### Request validation choice (minimal handlers: Middy, JSON body, validation of the PUT schemas)',
    mdTable(validationTable(r.coldStart.validation)),
  ];
  if (r.perRequest) {
    parts.push(
      '### 2. Per request, warm (500 requests each; bare calls and HTTP hop interleaved)',
      mdTable(perRequestTable(r.perRequest, r.budgets)),
      '### 3. DynamoDB work per request (capacity as DynamoDB Local reports it)',
      mdTable(dynamoWorkTable(r.perRequest, r.budgets)),
    );
  }
  if (r.coldAuthentication?.length) {
    parts.push(
      '### Authentication on an empty cache',
      mdTable(coldAuthenticationTable(r.coldAuthentication)),
    );
  }
  const a = r.addRecipients;
  if (a) {
    parts.push(
      `### Add recipients: ${a.recipients} new embed recipients, then the same request again (medians over ${a.newMs.samples} runs)`,
      mdTable(addRecipientsTable(a)),
    );
  }
  if (r.dispatch) {
    parts.push(
      `### Dispatch: ${r.dispatch.notifications} notifications due in one minute; send-now of many recipients`,
      mdTable(dispatchTable(r.dispatch)),
      mdTable(sendNowTable(r.dispatch.sendNows)),
    );
  }
  if (r.cost?.sizes.length) {
    parts.push(
      '### Add recipients at size: the same add on notifications holding 0 to 50,000 recipients (time: median of 10)',
      mdTable(sizesTable(r.cost.sizes, r.budgets)),
    );
  }
  if (r.cost?.concurrency) {
    parts.push('### Concurrency', mdTable(concurrencyTable(r.cost.concurrency)));
  }
  if (r.lists) {
    parts.push(
      '### List walks over the largest items',
      mdTable(walksTable(r.lists.walks, r.budgets)),
      '### Notifications of a recipient on one dashboard, a page of 1',
      mdTable(recipientOnDashboardTable(r.lists.recipientOnDashboard)),
    );
  }
  parts.push(
    '### 4. Token verification, warm caches',
    mdTable(tokensTable(r.tokens, r.budgets)),
    '### Every budget of this run',
    mdTable(budgetsTable(r.budgets)),
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
