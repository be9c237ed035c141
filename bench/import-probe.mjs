// Runs in a fresh Node process per sample: the time to import one bundle, as Lambda's init does.
// Plain .mjs so that nothing (type stripping included) is loaded before the measured import.
const bundle = process.argv[2];
const before = performance.now();
await import(bundle);
const after = performance.now();
process.stdout.write(`${after - before}\n`);
