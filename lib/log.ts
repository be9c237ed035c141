import { Logger } from '@aws-lambda-powertools/logger';
import { SERVICE_NAME } from '#lib/telemetry-names';

/**
 * The one logger: Powertools' JSON lines, which CloudWatch Logs Insights queries by field. Its Middy
 * middleware adds the Lambda request id, function name and cold start to every line. Callers pass only
 * what is safe to keep: never a credential, a request body or stored personal data (e-mails,
 * externalIds, security contexts). The level comes from POWERTOOLS_LOG_LEVEL or LOG_LEVEL.
 */
export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME,
  // Powertools reads only upper-case names from the environment; the stages write `info`, `debug`...
  logLevel: (process.env.POWERTOOLS_LOG_LEVEL || process.env.LOG_LEVEL || 'INFO').toUpperCase() as 'INFO',
});
