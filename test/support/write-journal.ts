import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '#lib/config';
import { tableName } from '#lib/store/dynamo/client';
import { tableKeySchema } from '#lib/store/dynamo/keys';

/**
 * What a window of requests changed in the table, at the cost of the items they wrote rather than a
 * scan of the table: an SDK middleware on the client's own stack reads, before a write call, each item
 * it names that the window has not touched yet (its image then, or none), and `changes` reads them
 * again. Equal images mean the window left the table as it was, whatever it wrote in between (a claim
 * made and released, an update that set what was there). Requests in a window run one at a time.
 */
export interface WriteJournal {
  /** Starts a new window: what was written before it no longer counts. */
  start(): void;
  /** The touched items whose image differs now, before and after, as comparable text. */
  changes(): Promise<{ before: string[]; after: string[] }>;
  detach(): void;
}

type Key = Record<string, string>;
type AttributeValue = string | { S?: string };
type Keyed = { Key?: Record<string, AttributeValue>; Item?: Record<string, AttributeValue> };
type WriteInput = Keyed & {
  RequestItems?: Record<string, { PutRequest?: Keyed; DeleteRequest?: Keyed }[]>;
  TransactItems?: { Put?: Keyed; Update?: Keyed; Delete?: Keyed }[];
};

const sortedKeys = (_key: string, value: unknown) =>
  value && typeof value === 'object' && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)))
    : value;

const plain = (value: AttributeValue | undefined) => (typeof value === 'object' ? value.S : value);

function keyOf(keyed: Keyed | undefined): Key | undefined {
  const source = keyed?.Key ?? keyed?.Item;
  const pk = plain(source?.[tableKeySchema.partitionKey]);
  const sk = plain(source?.[tableKeySchema.sortKey]);
  return pk === undefined || sk === undefined
    ? undefined
    : { [tableKeySchema.partitionKey]: pk, [tableKeySchema.sortKey]: sk };
}

/** The items a write call names: its own key, a batch's requests, a transaction's puts, updates and deletes. */
function keysOf(input: WriteInput): Key[] {
  const named: (Keyed | undefined)[] = [input];
  for (const requests of Object.values(input.RequestItems ?? {}))
    for (const request of requests) named.push(request.PutRequest ?? request.DeleteRequest);
  for (const item of input.TransactItems ?? []) named.push(item.Put ?? item.Update ?? item.Delete);
  return named.map(keyOf).filter((key): key is Key => key !== undefined);
}

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

export function journalWrites(client: DynamoDBDocumentClient): WriteJournal {
  const { dynamoDbEndpoint, region } = config();
  const reader = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: dynamoDbEndpoint,
      region,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );
  const image = async (key: Key) => {
    const { Item } = await reader.send(
      new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }),
    );
    return Item === undefined ? 'none' : JSON.stringify(Item, sortedKeys);
  };
  let before = new Map<string, { key: Key; image: string }>();
  const name = `write-journal-${Math.random().toString(36).slice(2)}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = (context.commandName ?? '').replace(/Command$/, '');
      if (WRITES.has(operation)) {
        for (const key of keysOf(args.input as WriteInput)) {
          const id = JSON.stringify(key);
          if (!before.has(id)) before.set(id, { key, image: await image(key) });
        }
      }
      return next(args);
    },
    { step: 'initialize', name, priority: 'high' },
  );
  return {
    start() {
      before = new Map();
    },
    async changes() {
      const changed = { before: [] as string[], after: [] as string[] };
      for (const { key, image: then } of before.values()) {
        const now = await image(key);
        if (now !== then) {
          changed.before.push(then);
          changed.after.push(now);
        }
      }
      return changed;
    },
    detach() {
      client.middlewareStack.remove(name);
      reader.destroy();
    },
  };
}
