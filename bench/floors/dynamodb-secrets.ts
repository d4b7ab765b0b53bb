/** Cold-start floor of a route that pages (its token key is a secret): DynamoDB's clients and Secrets Manager's, and nothing else. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

export const handler = async () => ({
  statusCode: 204,
  body: [DynamoDBClient, DynamoDBDocumentClient, unmarshall, SecretsManagerClient].map((f) => f.name).join(),
});
