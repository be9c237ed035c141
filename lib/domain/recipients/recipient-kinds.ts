import type { RecipientProperties } from '#lib/domain/recipients/recipients-input';

/**
 * The kinds of recipient, declared once: a console user (`USER`), an embedded-analytics user of a
 * tenant (`EMBED_USER`), and a Slack channel (`SLACK`, accepted in input and refused, never stored).
 * Each kind lists its fields in every form it takes (its facets); each union the code works with is
 * derived from here (`KindUnion<'output'>`), so a new kind's types are declared in this one place. The
 * typecheck then names most of the code that must learn it: each branch that assumes the kinds it
 * knows, the row and delivery codecs, the answer schemas (`DescribesAll`); the request schemas and
 * the key shapes (lib/store/dynamo/) it does not.
 */

/**
 * Drawn at random when a recipient row is created and kept by later rewrites of it: each subscription
 * of a recipient to a notification has its own, so an unsubscribe link bound to it never removes a
 * later subscription of the same recipient. Rows stored before nonces existed have none. Never shown.
 */
export type SubscriptionNonce = string;

/** What every recipient row carries beside its recipient. */
interface Subscription {
  /** When the row was first written (ISO-8601 UTC); kept by later rewrites of the row. */
  subscribedAt?: string;
  /** The subscription's own random value (see SubscriptionNonce). */
  subscriptionNonce?: SubscriptionNonce;
}

/** An embed user as keys name it: the tenant, and the externalId trimmed and lower-cased. */
export interface EmbedUserRef {
  embedTenantName: string;
  normalizedExternalId: string;
}

/** A console user's row: the id alone names it, so its key is known from the row too. */
type UserRow = { userId: number } & Subscription;

interface RecipientKinds {
  USER: {
    /** An add's item (lib/domain/recipients/recipients-input.ts). */
    input: { userId?: number; email?: string };
    /** The recipient row as stored. */
    row: UserRow;
    /** A row as its key names it. */
    ref: UserRow;
    /** The recipient as the API shows it, and as a delivery records it. */
    output: { userId: number; email: string; username: string };
    /** A removal's item, and what it removes once checked. */
    removal: { id: number };
    target: { userId: number };
    /** Whom an unsubscribe link names. */
    unsubscribe: { userId: number };
    /** The recipient by its numeric id, as the per-deployment recipient index names it. */
    byId: { userId: number };
    /** A notification's owner, and an audit event's actor. */
    owner: { userId: number; email: string };
    actor: { userId: number; via: 'api_key' | 'console_token' };
  };
  EMBED_USER: {
    input: RecipientProperties & {
      embedTenantName: string;
      /** Trimmed; matched case-insensitively through `normalizeExternalId`. */
      externalId: string;
      email?: string;
    };
    /** The row keeps its embed user's id, externalId and e-mail, so a replay need not read the embed user. */
    row: EmbedUserRef & {
      externalId: string;
      embedUserId: number;
      email: string;
      properties: RecipientProperties;
    } & Subscription;
    ref: EmbedUserRef;
    output: { embedTenantName: string; externalId: string; embedUserId: number; email: string };
    removal: { id: number; embedTenantName: string };
    target: { embedUserId: number; embedTenantName: string };
    unsubscribe: EmbedUserRef;
    byId: { embedUserId: number };
    owner: { embedTenantName: string; externalId: string; embedUserId: number };
    actor: { embedTenantName: string; externalId: string };
  };
  SLACK: {
    input: { channelId?: string; channelName?: string };
    removal: { id: string };
  };
}

export type RecipientKind = keyof RecipientKinds;
type Facet = { [K in RecipientKind]: keyof RecipientKinds[K] }[RecipientKind];
/** The kinds that have `F` (no Slack channel is stored, shown or owns anything). */
export type KindsWith<F extends Facet> = {
  [K in RecipientKind]: F extends keyof RecipientKinds[K] ? K : never;
}[RecipientKind];
/** One object type of its fields, as a hand-written one would be. */
type Flat<T> = { [P in keyof T]: T[P] } & {};

/** Kind `K` in form `F`, with its `type`. */
export type KindOf<F extends Facet, K extends KindsWith<F>> = Flat<
  { type: K } & RecipientKinds[K][F & keyof RecipientKinds[K]]
>;
/** Every kind that has form `F`, each with its `type`: `KindUnion<'output'>` is the answer's recipient. */
export type KindUnion<F extends Facet> = { [K in KindsWith<F>]: KindOf<F, K> }[KindsWith<F>];

/** Every kind, in the order the contract lists them: what an add's `type` may be. */
export const recipientKinds = ['USER', 'EMBED_USER', 'SLACK'] as const satisfies readonly RecipientKind[];
/**
 * The kinds that are users: a recipient row, a delivery, a notification's owner is one of these (a
 * Slack channel is refused before anything is stored).
 */
export const userKinds = ['USER', 'EMBED_USER'] as const satisfies readonly KindsWith<'row'>[];
export type UserKind = (typeof userKinds)[number];

/** Every kind listed: a kind declared above and missing from `recipientKinds` fails the typecheck here. */
type Missing<All, Listed> = Exclude<All, Listed> extends never ? true : Exclude<All, Listed>;
true satisfies Missing<RecipientKind, (typeof recipientKinds)[number]>;
true satisfies Missing<KindsWith<'row'>, UserKind>;
