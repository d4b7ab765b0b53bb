/** Cold-start floor of a file route: DynamoDB's clients, S3's and its presigner, and nothing else. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { unmarshall } from '@aws-sdk/util-dynamodb';

export const handler = async () => ({
  statusCode: 204,
  body: [DynamoDBClient, DynamoDBDocumentClient, unmarshall, S3Client, getSignedUrl].map((f) => f.name).join(),
});
