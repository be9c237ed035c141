/**
 * Imported first by `npm start`, before any module that builds the metrics buffer at load: one
 * process serves every route there, concurrently, so a per-process EMF buffer would mix requests.
 * Metrics stay off unless POWERTOOLS_METRICS_DISABLED=false asks for them.
 */
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
// A person reads this terminal: one short line per request; LOG_FORMAT=json gives the deployed JSON lines.
process.env.LOG_FORMAT ??= 'short';
// A webhook receiver on this machine (`npm run webhook-receiver`) is reachable over http://; deployed, never.
process.env.WEBHOOK_ALLOW_LOOPBACK ??= 'true';
// One process serves every route here: an endpoint made a moment ago is heard by the very next change.
process.env.WEBHOOK_SUBSCRIPTION_CACHE_SECONDS ??= '0';
