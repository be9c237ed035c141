// First: the local process's log and metric settings, read by the modules below when they load.
import './local-process-env.ts';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { DOCS_PATH, docsPage } from '#lib/local/docs-page';
import { functionsFrom } from '#lib/local/handlers';
import { createLocalApi } from '#lib/local/http-adapter';
import document from '../lib/openapi/openapi.json' with { type: 'json' };

/**
 * `npm run check:docs`: opens the local reference (GET /docs) in a real headless browser (Debian's
 * chromium, `CHROMIUM` to name another) and fails unless the page loads without a console error or a
 * failed request, asks no other host for anything, and shows every operation of the description.
 * Run by .ci/run; not part of `npm test`, which needs no browser.
 */

const TIMEOUT_MS = 30_000;
/** Once the network is idle, how long the page is still watched for errors. */
const SETTLE_MS = 2_000;

async function main(): Promise<number> {
  // GET /v1/spec and /docs read no table: no DynamoDB engine is needed.
  const server = createLocalApi({
    resolveHandler: functionsFrom(new URL('../functions/', import.meta.url)),
    pages: docsPage,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox'],
  });
  const problems: string[] = [];
  try {
    const page = await browser.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
    await page.route('**/*', (route) => {
      if (new URL(route.request().url()).origin === origin) return route.continue();
      problems.push(`request to another host: ${route.request().url()}`);
      return route.abort();
    });
    const response = await page.goto(`${origin}${DOCS_PATH}`, { timeout: TIMEOUT_MS });
    if (response?.status() !== 200) problems.push(`GET ${DOCS_PATH} answered ${response?.status()}`);
    const operations = Object.values(document.paths).flatMap((item) =>
      Object.values(item as Record<string, { summary: string }>).map((operation) => operation.summary),
    );
    for (const summary of operations) {
      try {
        await page.getByText(summary, { exact: true }).first().waitFor({ timeout: TIMEOUT_MS });
      } catch {
        problems.push(`operation not shown: ${summary}`);
      }
    }
    // Late console errors (a failed icon, a script's deferred work) come after the operations show.
    await page.waitForLoadState('networkidle', { timeout: TIMEOUT_MS });
    await page.waitForTimeout(SETTLE_MS);
    console.log(`${DOCS_PATH}: ${operations.length} operations checked in chromium ${browser.version()}`);
  } finally {
    await browser.close();
    server.close();
  }
  for (const problem of problems) console.error(problem);
  return problems.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`npm run check:docs failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
