import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { DUE_INDEX, tableKeySchema } from '#lib/store/keys';

/** The table as the local runtime and the tests create it; the CDK stack declares the same keys. */
export function tableDefinition(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: tableKeySchema.partitionKey, AttributeType: 'S' },
      { AttributeName: tableKeySchema.sortKey, AttributeType: 'S' },
      { AttributeName: DUE_INDEX.partitionKey, AttributeType: 'S' },
      { AttributeName: DUE_INDEX.sortKey, AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: tableKeySchema.partitionKey, KeyType: 'HASH' },
      { AttributeName: tableKeySchema.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: DUE_INDEX.name,
        KeySchema: [
          { AttributeName: DUE_INDEX.partitionKey, KeyType: 'HASH' },
          { AttributeName: DUE_INDEX.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ],
  };
}
