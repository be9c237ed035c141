import { type Budget, met, VERIFY_MICROSECONDS } from './budgets.ts';
import type { BenchKeys } from './fixture.ts';
import { type Bench, log, part, section } from './output.ts';
import { round } from './stats.ts';
import { type Table, table, us } from './table.ts';
import { measureTokenVerification, type TokenFigures } from './tokens.ts';

/** Item 4, CPU only: run before DynamoDB Local starts. */
export async function tokensSection(bench: Bench, keys: BenchKeys): Promise<TokenFigures[]> {
  section('Token verification with warm caches (µs per verification)');
  const tokens =
    (await part(bench, 'token verification', () =>
      measureTokenVerification(keys, bench.settings.tokenBatches),
    )) ?? [];
  for (const t of tokens)
    bench.budgets.atMost(
      `verify ${t.kind}`,
      round(t.microseconds.median, 1),
      VERIFY_MICROSECONDS,
      'µs',
      false,
    );
  log(table(tokensTable(tokens, bench.budgets.all)));
  return tokens;
}

export const tokensTable = (tokens: TokenFigures[], budgets: Budget[]): Table => ({
  headers: [
    'credential',
    'median',
    'p99',
    'floor',
    'floor median',
    'RS256 signature alone',
    'met (≤ 200 µs)',
  ],
  rows: tokens.map((t) => [
    t.kind,
    us(t.microseconds.median),
    us(t.microseconds.p99),
    t.floorName,
    us(t.floorMicroseconds.median),
    t.signatureMicroseconds ? us(t.signatureMicroseconds.median) : '',
    met(budgets, `verify ${t.kind}`),
  ]),
});
