/**
 * Starts ONE in-memory DynamoDB Local for the whole test run and hands its endpoint to the
 * test files (`inject('dynamodbEndpoint')`); each file creates its own tables in it.
 */
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '#lib/local/dynamodb-local';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The SDK's "Node 22 will be required in 2027" notice is noise here (vitest.config sets it for workers).
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const dynamodb = await startDynamoDbLocal({});
  project.provide('dynamodbEndpoint', dynamodb.endpoint);
  return () => dynamodb.stop();
}
