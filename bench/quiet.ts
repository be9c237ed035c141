/**
 * Imported first by bench/run.ts, before any module builds the logger or the metrics buffer: the
 * request scenarios print tables, not a log line and a metrics line per request. Their cost still
 * counts where it is fixed, in the bundles and imports of the cold-start section.
 */
process.env.LOG_LEVEL ??= 'silent';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
