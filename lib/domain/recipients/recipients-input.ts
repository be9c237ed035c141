import type { KindOf, KindUnion, RecipientKind, UserKind } from '#lib/domain/recipients/recipient-kinds';
import { fitsKeyPart, KEY_PART_MAX_BYTES, utf8Bytes } from '#lib/limits';

/**
 * The rules of an "add recipients" item: how its kind is settled (explicit `type`, else inferred from
 * its fields), which fields each kind may carry, and the classified value everything after the request
 * schema works on. Slack items are classified on purpose: refusing them is a rule of its own with its
 * own error code (`unsupported_recipient`).
 */

export const MIN_RECIPIENTS = 1;
export const MAX_RECIPIENTS = 1000;
/**
 * Together, an item's securityContext, userAttributes and groups as JSON, in UTF-8 bytes: a row stays
 * far below DynamoDB's 400 KB item, and 50 new embed users with their rows below its 4 MB transaction.
 */
export const MAX_PROPERTIES_JSON_BYTES = 32_768;
/**
 * The counts and lengths of userAttributes and groups, which multiply out within the bytes above
 * (text at most 3 bytes a character, as control characters JSON writes as six bytes are refused):
 * 20 attributes with a 64-character name and a 256-character value take at most 19,659 bytes, 50
 * groups of 64 characters 9,749, the JSON around them 40; securityContext has the rest, bytes only.
 */
export const propertyLimits = {
  userAttributes: 20,
  attributeNameLength: 64,
  attributeValueLength: 256,
  groups: 50,
  groupLength: 64,
} as const;
const MAX_EXTERNAL_ID_LENGTH = 256;

/** An attribute's value as the platform takes it; a list value counts against the bytes only. */
type UserAttributeValue = string | number | boolean | string[] | number[];

export interface UserAttribute {
  name: string;
  value?: UserAttributeValue;
}

/** One item of the request as written, before its kind is settled. */
export interface RecipientFields {
  type?: RecipientKind;
  userId?: number;
  email?: string;
  embedTenantName?: string;
  externalId?: string;
  securityContext?: Record<string, unknown>;
  userAttributes?: UserAttribute[];
  groups?: string[];
  channelId?: string;
  channelName?: string;
}

/** The per-recipient rendering properties of an embed recipient. */
export interface RecipientProperties {
  securityContext?: Record<string, unknown>;
  userAttributes?: UserAttribute[];
  groups?: string[];
}

export type UserRecipientInput = KindOf<'input', 'USER'>;
export type EmbedRecipientInput = KindOf<'input', 'EMBED_USER'>;
/** An item once its kind is settled; its fields per kind are in lib/domain/recipients/recipient-kinds.ts. */
export type RecipientInput = KindUnion<'input'>;

/** The form in which externalIds are compared and keyed: trimmed and lower-cased. */
export const normalizeExternalId = (externalId: string) => externalId.trim().toLowerCase();

/** The contract's inference order when `type` is absent; undefined when nothing identifies a recipient. */
export function recipientKindOf(item: RecipientFields): RecipientKind | undefined {
  if (item.type) return item.type;
  if (item.embedTenantName !== undefined || item.externalId !== undefined) return 'EMBED_USER';
  if (item.channelId !== undefined || item.channelName !== undefined) return 'SLACK';
  if (item.userId !== undefined || item.email !== undefined) return 'USER';
  return undefined;
}

/** Fields each kind may carry; any other field supplied is refused rather than ignored. */
const fieldsOf: Record<UserKind, ReadonlySet<string>> = {
  USER: new Set(['type', 'userId', 'email']),
  EMBED_USER: new Set([
    'type',
    'embedTenantName',
    'externalId',
    'email',
    'securityContext',
    'userAttributes',
    'groups',
  ]),
};

type Issue = { path: string[]; message: string };

export const tooLongEncoded = `must be at most ${KEY_PART_MAX_BYTES} bytes once URL-encoded`;
/** Text that is not well-formed has been refused already (refinements do not stop these checks). */
const tooLongForKey = (value: string) => value.isWellFormed() && !fitsKeyPart(value);
/** A console user is looked up by e-mail, lower-cased: the address is a key part. */
export const emailFitsKey = (email: string) => !tooLongForKey(email.toLowerCase());
const article = (kind: RecipientKind) => (kind === 'EMBED_USER' ? 'an' : 'a');

/** What is wrong with an item beyond its field types: nothing identifies it, or fields its kind does not have. */
export function recipientProblems(item: RecipientFields): Issue[] {
  const kind = recipientKindOf(item);
  if (kind === undefined) {
    return [
      {
        path: [],
        message:
          'does not identify a recipient: give userId or email (USER), or embedTenantName and externalId (EMBED_USER)',
      },
    ];
  }
  // Every Slack item is refused as a whole later on; its other fields do not matter.
  if (kind === 'SLACK') return [];
  const issues: Issue[] = [];
  for (const [field, value] of Object.entries(item)) {
    if (value !== undefined && !fieldsOf[kind].has(field)) {
      issues.push({ path: [field], message: `is not a field of ${article(kind)} ${kind} recipient` });
    }
  }
  if (kind === 'USER' && item.userId === undefined && item.email === undefined) {
    issues.push({ path: [], message: 'needs userId or email to identify a USER recipient' });
  }
  if (kind === 'USER' && item.email !== undefined && !emailFitsKey(item.email)) {
    issues.push({ path: ['email'], message: tooLongEncoded });
  }
  if (kind === 'EMBED_USER') {
    if (item.embedTenantName === undefined) {
      issues.push({ path: ['embedTenantName'], message: 'is required for an EMBED_USER recipient' });
    } else if (tooLongForKey(item.embedTenantName)) {
      issues.push({ path: ['embedTenantName'], message: tooLongEncoded });
    }
    const externalId = item.externalId?.trim();
    if (externalId === undefined) {
      issues.push({ path: ['externalId'], message: 'is required for an EMBED_USER recipient' });
    } else if (externalId === '') {
      issues.push({ path: ['externalId'], message: 'must not be blank' });
    } else if (externalId.length > MAX_EXTERNAL_ID_LENGTH) {
      issues.push({ path: ['externalId'], message: `must be at most ${MAX_EXTERNAL_ID_LENGTH} characters` });
    } else if (tooLongForKey(normalizeExternalId(externalId))) {
      issues.push({ path: ['externalId'], message: tooLongEncoded });
    }
    const { securityContext, userAttributes, groups } = item;
    const propertiesBytes = utf8Bytes(JSON.stringify({ securityContext, userAttributes, groups }));
    if (propertiesBytes > MAX_PROPERTIES_JSON_BYTES) {
      issues.push({
        path: [],
        message: `securityContext, userAttributes and groups together must be at most ${MAX_PROPERTIES_JSON_BYTES} bytes as JSON (UTF-8)`,
      });
    }
  }
  return issues;
}

/** The item as its kind; undefined when it cannot be one, which `recipientProblems` explains. */
export function classifyRecipient(item: RecipientFields): RecipientInput | undefined {
  const kind = recipientKindOf(item);
  if (kind === 'SLACK') {
    return { type: 'SLACK', channelId: item.channelId, channelName: item.channelName };
  }
  if (kind === 'USER') return { type: 'USER', userId: item.userId, email: item.email };
  const { embedTenantName, externalId } = item;
  if (kind === undefined || embedTenantName === undefined || externalId === undefined) return undefined;
  return {
    type: 'EMBED_USER',
    embedTenantName,
    externalId: externalId.trim(),
    email: item.email,
    securityContext: item.securityContext,
    userAttributes: item.userAttributes,
    groups: item.groups,
  };
}
