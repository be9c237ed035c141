import type { Page, PageRequest } from '#lib/domain/paging';
import {
  type EventSubscription,
  subscribesTo,
  type WebhookEventType,
  webhookEventTypes,
} from '#lib/domain/webhooks/event-types';
import { refusedResolution, type UrlPolicy, urlProblem } from '#lib/domain/webhooks/url-policy';
import { ConflictError, NotFoundError, ValidationError } from '#lib/errors';

/**
 * A deployment's webhook endpoints: where its event messages go, which types each wants, and the
 * secrets that sign them. A secret is shown once, when it is made (create, rotation); no read of the
 * API returns one.
 */

const MAX_WEBHOOKS_PER_DEPLOYMENT = 10;
/** How long a rotated secret keeps signing beside its successor, so receivers can switch over. */
const ROTATED_SECRET_SIGNS_MS = 24 * 60 * 60 * 1000;
export const MAX_WEBHOOK_DESCRIPTION_LENGTH = 500;

export const webhookStatuses = ['enabled', 'disabled'] as const;
type WebhookStatus = (typeof webhookStatuses)[number];

interface SigningSecret {
  secret: string;
  /** Epoch ms after which it no longer signs; null for the current secret. */
  expiresAt: number | null;
}

export interface WebhookEndpoint {
  id: string;
  deploymentId: number;
  url: string;
  events: EventSubscription[];
  description: string | null;
  status: WebhookStatus;
  createdAt: string;
  updatedAt: string;
  /** The current secret first. */
  secrets: SigningSecret[];
  /** When the run of failed attempts that is still unbroken began; null after any success. */
  failingSince: string | null;
  /** Counts every write, so that a read-modify-write loses to any write in between. */
  version: number;
}

export interface WebhookDto {
  id: string;
  deploymentId: number;
  url: string;
  events: EventSubscription[];
  description: string | null;
  status: WebhookStatus;
  createdAt: string;
  updatedAt: string;
}

export type CreatedWebhookDto = WebhookDto & { secret: string };

const toWebhookDto = (endpoint: WebhookEndpoint): WebhookDto => ({
  id: endpoint.id,
  deploymentId: endpoint.deploymentId,
  url: endpoint.url,
  events: endpoint.events,
  description: endpoint.description,
  status: endpoint.status,
  createdAt: endpoint.createdAt,
  updatedAt: endpoint.updatedAt,
});

export interface WebhookRef {
  deploymentId: number;
  webhookId: string;
}

/** The endpoints of a deployment in storage. */
export interface WebhookEndpointStore {
  /** Every endpoint of the deployment, oldest first. */
  all(deploymentId: number): Promise<WebhookEndpoint[]>;
  /** Adds it unless the deployment already has `max`: false then. */
  add(endpoint: WebhookEndpoint, max: number): Promise<boolean>;
  /** Writes it over the stored one, on condition that that is still at `version - 1`: false when not (or gone). */
  replace(endpoint: WebhookEndpoint): Promise<boolean>;
  /** Removes it: false when there was none. */
  remove(ref: WebhookRef): Promise<boolean>;
}

/** What making and checking an endpoint needs from the machine: the time, new ids and secrets, DNS. */
export interface WebhookContext {
  now: number;
  newWebhookId: () => string;
  newSecret: () => string;
  policy: UrlPolicy;
  /** The addresses a host name resolves to (an IP literal resolves to itself); empty when it does not. */
  resolve: (host: string) => Promise<string[]>;
}

export interface WebhookInput {
  url: string;
  events: EventSubscription[];
  description?: string | null | undefined;
}

export interface WebhookChange {
  url?: string | undefined;
  events?: EventSubscription[] | undefined;
  description?: string | null | undefined;
  status?: WebhookStatus | undefined;
}

/** Refuses a URL by its text, then (deployed) by what its host resolves to now. */
async function checkUrl(url: string, context: WebhookContext): Promise<void> {
  const problem = urlProblem(url, context.policy);
  if (problem) throw new ValidationError([{ path: 'url', message: problem }]);
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (refusedResolution(await context.resolve(host), context.policy)) {
    throw new ValidationError([
      {
        path: 'url',
        message: 'must resolve to public addresses only (not loopback, private, link-local or metadata)',
      },
    ]);
  }
}

/** Endpoint ids as the service issues them: `wh_` + 24 hex digits. Any other is no endpoint (404). */
export const WEBHOOK_ID_PATTERN = /^wh_[0-9a-f]{24}$/;

/** The one 404 of an endpoint that is not there (or not in that deployment). */
export const webhookNotFound = (ref: WebhookRef) =>
  new NotFoundError(`Webhook ${ref.webhookId} of deployment ${ref.deploymentId}`);

/** Secrets that still sign at `now`, the current one first. */
export const liveSecrets = (endpoint: WebhookEndpoint, now: number) =>
  endpoint.secrets.filter((secret) => secret.expiresAt === null || secret.expiresAt > now);

/** The event types some enabled endpoint of the deployment subscribes to. */
export const subscribedTypes = (endpoints: readonly WebhookEndpoint[]): Set<WebhookEventType> =>
  new Set(
    webhookEventTypes.filter((type) =>
      endpoints.some((endpoint) => endpoint.status === 'enabled' && subscribesTo(endpoint.events, type)),
    ),
  );

/** The enabled endpoints that want a message of `type`. */
export const endpointsFor = (endpoints: readonly WebhookEndpoint[], type: WebhookEventType) =>
  endpoints.filter((endpoint) => endpoint.status === 'enabled' && subscribesTo(endpoint.events, type));

export async function createWebhook(
  store: WebhookEndpointStore,
  deploymentId: number,
  input: WebhookInput,
  context: WebhookContext,
): Promise<CreatedWebhookDto> {
  await checkUrl(input.url, context);
  const at = new Date(context.now).toISOString();
  const secret = context.newSecret();
  const endpoint: WebhookEndpoint = {
    id: context.newWebhookId(),
    deploymentId,
    url: input.url,
    events: input.events,
    description: input.description ?? null,
    status: 'enabled',
    createdAt: at,
    updatedAt: at,
    secrets: [{ secret, expiresAt: null }],
    failingSince: null,
    version: 1,
  };
  if (!(await store.add(endpoint, MAX_WEBHOOKS_PER_DEPLOYMENT))) {
    throw new ConflictError(
      `Deployment ${deploymentId} already has ${MAX_WEBHOOKS_PER_DEPLOYMENT} webhooks, the most it may have`,
    );
  }
  return { ...toWebhookDto(endpoint), secret };
}

/** Reads the endpoints and nothing more: a read route's functions bundle no write. */
export type WebhookEndpointReader = Pick<WebhookEndpointStore, 'all'>;

async function findEndpoint(store: WebhookEndpointReader, ref: WebhookRef): Promise<WebhookEndpoint> {
  const found = (await store.all(ref.deploymentId)).find((endpoint) => endpoint.id === ref.webhookId);
  if (!found) throw webhookNotFound(ref);
  return found;
}

export async function listWebhooks(
  store: WebhookEndpointReader,
  deploymentId: number,
  request: PageRequest,
): Promise<Page<WebhookDto>> {
  // At most ten: the whole list is one page, whatever `first` allows, and no cursor follows it.
  const items = (await store.all(deploymentId)).slice(0, request.first).map(toWebhookDto);
  return {
    items,
    pageInfo: {
      startCursor: null,
      endCursor: null,
      hasNextPage: false,
      hasPreviousPage: request.after !== undefined,
    },
  };
}

export async function getWebhook(store: WebhookEndpointReader, ref: WebhookRef): Promise<WebhookDto> {
  return toWebhookDto(await findEndpoint(store, ref));
}

/**
 * Reads, changes and writes back an endpoint, again if another write came in between. A change that
 * leaves it as it is (undefined) writes nothing.
 */
async function changeEndpoint(
  store: WebhookEndpointStore,
  ref: WebhookRef,
  change: (endpoint: WebhookEndpoint) => WebhookEndpoint | undefined,
): Promise<WebhookEndpoint> {
  for (let round = 0; round < 5; round++) {
    const current = await findEndpoint(store, ref);
    const changed = change(current);
    if (!changed) return current;
    const next = { ...changed, version: current.version + 1 };
    if (await store.replace(next)) return next;
  }
  throw new ConflictError(`Webhook ${ref.webhookId} keeps changing; try again`);
}

export async function updateWebhook(
  store: WebhookEndpointStore,
  ref: WebhookRef,
  input: WebhookChange,
  context: WebhookContext,
): Promise<WebhookDto> {
  if (input.url !== undefined) await checkUrl(input.url, context);
  const at = new Date(context.now).toISOString();
  const updated = await changeEndpoint(store, ref, (endpoint) => {
    const next = {
      ...endpoint,
      ...(input.url !== undefined && { url: input.url }),
      ...(input.events !== undefined && { events: input.events }),
      ...(input.description !== undefined && { description: input.description }),
      ...(input.status !== undefined && { status: input.status }),
      // Enabled again by its owner: its failures so far no longer count towards disabling it.
      ...(input.status === 'enabled' && { failingSince: null }),
    };
    return JSON.stringify(next) === JSON.stringify(endpoint) ? undefined : { ...next, updatedAt: at };
  });
  return toWebhookDto(updated);
}

export async function deleteWebhook(store: WebhookEndpointStore, ref: WebhookRef): Promise<void> {
  if (!WEBHOOK_ID_PATTERN.test(ref.webhookId) || !(await store.remove(ref))) throw webhookNotFound(ref);
}

/** A new current secret; the one it replaces signs beside it for 24 hours, older ones stop. */
export async function rotateWebhookSecret(
  store: WebhookEndpointStore,
  ref: WebhookRef,
  context: Pick<WebhookContext, 'now' | 'newSecret'>,
): Promise<{ secret: string }> {
  const secret = context.newSecret();
  await changeEndpoint(store, ref, (endpoint) => {
    const [current] = liveSecrets(endpoint, context.now);
    return {
      ...endpoint,
      secrets: [
        { secret, expiresAt: null },
        ...(current ? [{ secret: current.secret, expiresAt: context.now + ROTATED_SECRET_SIGNS_MS }] : []),
      ],
      updatedAt: new Date(context.now).toISOString(),
    };
  });
  return { secret };
}
