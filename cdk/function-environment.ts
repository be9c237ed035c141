import { readConfig } from '#lib/config';
import { type StageConfig, StageConfigError } from './stages.ts';

/**
 * The variables lib/config.ts reads, from the stage's configuration; TABLE_NAME is added where the
 * function is bound to the table. The result goes through the functions' own parser first, so a
 * setting they would refuse fails the synth instead of the first request after a deploy.
 */
export function functionEnvironment(stage: StageConfig): Record<string, string> {
  const environment = {
    EMBED_AUDIENCE: stage.embedAudience,
    CUSTOM_CRON_MIN_INTERVAL_MINUTES: String(stage.customCronMinIntervalMinutes),
    TRUSTED_ISSUERS: JSON.stringify(stage.trustedIssuers),
    LOG_LEVEL: stage.logLevel,
    PRINCIPAL_CACHE_SECONDS: String(stage.principalCacheSeconds),
    EMBED_KEYS_CACHE_SECONDS: String(stage.embedKeysCacheSeconds),
    RUN_RETENTION_DAYS: String(stage.runRetentionDays),
    ...(stage.auditRetentionDays !== undefined && {
      AUDIT_RETENTION_DAYS: String(stage.auditRetentionDays),
    }),
  };
  try {
    readConfig({ ...environment, TABLE_NAME: stage.tableName });
  } catch (error) {
    throw new StageConfigError(`Stage "${stage.name}": ${(error as Error).message}`);
  }
  return environment;
}
