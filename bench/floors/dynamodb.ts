/** Cold-start floor of a route that speaks only to DynamoDB: the AWS clients it imports, and nothing else. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

export const handler = async () => ({
  statusCode: 204,
  body: [DynamoDBClient, DynamoDBDocumentClient, unmarshall].map((f) => f.name).join(),
});
