// Prints vitest's JSON results as the one closing line CI reads: "N passed, N failed".
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? '.local/test-results.json';
let results;
try {
  results = JSON.parse(readFileSync(file, 'utf8'));
} catch {
  console.log('0 passed, 1 failed');
  console.error(`No test results at ${file}: the test run did not complete.`);
  process.exit(1);
}
const passed = results.numPassedTests ?? 0;
const failed =
  (results.numFailedTests ?? 0) +
  (results.numTotalTestSuites > 0 && results.success === false && results.numFailedTests === 0 ? 1 : 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
