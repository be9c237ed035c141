import type { RecipientProperties } from '#lib/domain/recipients/recipients-input';

/**
 * An embed recipient's rendering properties are compared as values: the same object with its keys
 * in another order is the same property, while the order of an array's items is significant.
 */

export const propertyNames = ['securityContext', 'userAttributes', 'groups'] as const;

function sortedKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** JSON with every object's keys sorted: equal values give equal text. */
export function canonicalJson(value: unknown): string | undefined {
  return JSON.stringify(value, (_key, nested) => sortedKeys(nested));
}

/** The properties `supplied` states, laid over `stored`: an omitted property keeps its stored value. */
export function mergeProperties(
  stored: RecipientProperties,
  supplied: RecipientProperties,
): RecipientProperties {
  const merged: RecipientProperties = { ...stored };
  for (const name of propertyNames) {
    if (supplied[name] !== undefined) Object.assign(merged, { [name]: supplied[name] });
  }
  return merged;
}

/** Whether any property that `supplied` states differs from the stored one. */
export function propertiesChanged(stored: RecipientProperties, supplied: RecipientProperties): boolean {
  return propertyNames.some(
    (name) => supplied[name] !== undefined && canonicalJson(supplied[name]) !== canonicalJson(stored[name]),
  );
}

/** Only the properties that are set, for a new recipient. */
export function suppliedProperties(supplied: RecipientProperties): RecipientProperties {
  return mergeProperties({}, supplied);
}
