/**
 * The time limits of requests and background passes: the time kept back for a clean answer, the time
 * below which no storage call is started, the background functions' timeouts. Each API function's
 * own timeout is a fact of its route (lib/routes.ts).
 */

/** The dispatcher's function: a pass stops in time, and the next minute's pass resumes what it left. */
export const DISPATCHER_TIMEOUT_SECONDS = 60;
/** The purge's function: a pass stops in time, and the next minute's pass goes on. */
export const PURGE_TIMEOUT_SECONDS = 60;

/**
 * The longest any function that writes into a notification's partition runs: the dispatcher's timeout,
 * as API functions end within API Gateway's 30 seconds (a stack test holds every function deployed to it).
 * A request that read the notification before a delete can write no later than this after it.
 */
export const LONGEST_WRITER_SECONDS = 60;

/**
 * Long work stops starting new steps with this much left, to finish the step under way and record
 * where it stopped: a dispatcher pass and a purge pass (a step there may take a few seconds of
 * retries), a retry's pages (one page's transaction and its jobs).
 */
export const PASS_STEP_RESERVE_MS = 5_000;
export const RETRY_PAGE_RESERVE_MS = 3_000;

/** Kept back from the function's limit so that a late request still gets a proper 503, not a kill. */
export const TIMEOUT_RESERVE_MS = 500;

/**
 * A storage call gives up this long before the reserve above is reached, so that the handler itself
 * answers its 503 (with the route's own message) rather than the chain's last-moment timeout.
 */
export const STORAGE_ANSWER_MARGIN_MS = 500;

/**
 * A connection to the table's endpoint that is not made within this is given up (and retried). Not
 * tighter: a busy engine (DynamoDB Local on a loaded machine, 200 reports at once) took over a second
 * to accept, and each call is bounded by the time left anyway.
 */
export const STORAGE_CONNECT_TIMEOUT_MS = 5000;

/** Less than this left, and a call that may need retries is not started: better a clean 503 than a kill. */
export const MIN_TIME_FOR_A_CALL_MS = 1000;

/** What a 503 tells the caller to wait before repeating the request. */
export const RETRY_AFTER_SECONDS = 1;
/** An identity provider that cannot be reached is not back within a second. */
export const KEYS_RETRY_AFTER_SECONDS = 10;
