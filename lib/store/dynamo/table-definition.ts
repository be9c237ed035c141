import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { indexes, indexProjections, TIME_TO_LIVE_ATTRIBUTE, tableKeySchema } from '#lib/store/dynamo/keys';

/** The sparse secondary indexes: only items that carry an index's two attributes are in it. */
export const globalSecondaryIndexes = Object.values(indexes).map((index) => ({
  ...index,
  projection: indexProjections[index.name],
}));

/** TTL is switched on apart from the table's creation (UpdateTimeToLive), locally as in the stack. */
export const timeToLiveSpecification = (tableName: string) => ({
  TableName: tableName,
  TimeToLiveSpecification: { AttributeName: TIME_TO_LIVE_ATTRIBUTE, Enabled: true },
});

/** The table as the local runtime and the tests create it; the CDK stack declares the same keys. */
export function tableDefinition(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: tableKeySchema.partitionKey, AttributeType: 'S' },
      { AttributeName: tableKeySchema.sortKey, AttributeType: 'S' },
      ...globalSecondaryIndexes.flatMap((index) => [
        { AttributeName: index.partitionKey, AttributeType: 'S' as const },
        { AttributeName: index.sortKey, AttributeType: 'S' as const },
      ]),
    ],
    KeySchema: [
      { AttributeName: tableKeySchema.partitionKey, KeyType: 'HASH' },
      { AttributeName: tableKeySchema.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: globalSecondaryIndexes.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: index.projection },
    })),
  };
}
