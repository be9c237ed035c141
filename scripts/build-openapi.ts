import { writeFile } from 'node:fs/promises';
import { buildFromFunctions } from '#lib/openapi/build-document';

/**
 * `npm run openapi`: writes lib/openapi/openapi.json from the handlers' schemas. The tests fail
 * while the file differs from what this would write, so it is rebuilt with every change of a schema.
 */
const target = new URL('../lib/openapi/openapi.json', import.meta.url);
// The handlers read configuration on first use only; importing them needs none.
const document = await buildFromFunctions(new URL('../functions/', import.meta.url));
await writeFile(target, `${JSON.stringify(document, null, 2)}\n`);
console.log(`Wrote ${target.pathname} (${Object.keys(document.paths as object).length} paths)`);
