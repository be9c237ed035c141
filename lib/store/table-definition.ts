import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { tableKeySchema } from '#lib/store/keys';

/** The table as the local runtime and the tests create it; the CDK stack declares the same keys. */
export function tableDefinition(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: tableKeySchema.partitionKey, AttributeType: 'S' },
      { AttributeName: tableKeySchema.sortKey, AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: tableKeySchema.partitionKey, KeyType: 'HASH' },
      { AttributeName: tableKeySchema.sortKey, KeyType: 'RANGE' },
    ],
  };
}
