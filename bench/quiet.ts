/** Imported first by bench/run.ts: the request scenarios print tables, not a log and metrics line each. */
process.env.LOG_LEVEL ??= 'silent';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
