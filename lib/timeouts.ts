import type { Operation } from '#lib/routes';

/**
 * Every time limit of a request, in one place: the function timeout the stack configures (and the
 * local adapter and `npm run invoke` imitate), the time kept back for a clean answer, and the time
 * below which no storage call is started.
 */

/** API Gateway gives up on an integration after 30 seconds; every function ends before that. */
export const functionTimeoutSeconds: Record<Operation, number> = {
  'update-notification': 10,
  // Up to 1000 recipients, with batch retries bounded by the remaining time.
  'add-recipients': 29,
  'set-dashboard-embedding': 10,
  // An embed token may make the function fetch the tenant's JWKS over the internet.
  'get-embedded-dashboard': 10,
  // Delivers what fits; a run cut short is finished by the dispatcher under its lease.
  'send-notification': 29,
  'list-runs': 10,
  'list-deliveries': 10,
  'list-notifications': 10,
  'create-notification': 10,
  'get-notification': 10,
  // One transaction, whatever the notification holds: the purge does the rest in the background.
  'delete-notification': 10,
  'list-recipients': 10,
  // Up to 1000 recipients.
  'remove-recipients': 29,
  'get-api-spec': 10,
  // Up to a thousand failed deliveries: their jobs and eleven transactions.
  'retry-run': 29,
  // One transaction, retried with backoff while many reports of one run contend for it.
  'report-delivery-outcome': 29,
  'preview-schedule': 10,
  unsubscribe: 10,
  'get-unsubscribe-page': 10,
};

/** The dispatcher's function: a pass stops in time, and the next minute's pass resumes what it left. */
export const DISPATCHER_TIMEOUT_SECONDS = 60;
/** The purge's function: a pass stops in time, and the next minute's pass goes on. */
export const PURGE_TIMEOUT_SECONDS = 60;

/**
 * The longest any function that writes into a notification's partition runs (every API function
 * and the dispatcher; a stack test holds every function deployed to it). A request that read the
 * notification before a delete can write no later than this after it.
 */
export const LONGEST_WRITER_SECONDS = /* @__PURE__ */ (() =>
  // Pure: a function that needs only the reserve below bundles neither this nor the table above.
  Math.max(DISPATCHER_TIMEOUT_SECONDS, ...Object.values(functionTimeoutSeconds)))();

/** Kept back from the function's limit so that a late request still gets a proper 503, not a kill. */
export const TIMEOUT_RESERVE_MS = 500;

/** Less than this left, and a call that may need retries is not started: better a clean 503 than a kill. */
export const MIN_TIME_FOR_A_CALL_MS = 1000;

/** What a 503 tells the caller to wait before repeating the request. */
export const RETRY_AFTER_SECONDS = 1;
/** An identity provider that cannot be reached is not back within a second. */
export const KEYS_RETRY_AFTER_SECONDS = 10;
