/**
 * Cost reference: the DynamoDB requests a read handler sends, made bare — a plain low-level
 * client, none of the service around it (no middy, validation, logger, document client or
 * response). Bundled like a handler; the cost scenario replays each read endpoint's requests
 * (captured from the handler itself) through it, to price the handler's CPU against the SDK's.
 */
import { BatchGetItemCommand, DynamoDBClient, GetItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';

/** A request as it went over the wire: the operation (`X-Amz-Target`'s suffix) and its JSON body. */
export interface WireRequest {
  operation: string;
  input: Record<string, unknown>;
  /** Sent together with the previous request (the handler sent them in parallel). */
  parallel?: boolean;
}

const client = new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT || undefined });

const senders: Record<string, (input: any) => Promise<unknown>> = {
  BatchGetItem: (input) => client.send(new BatchGetItemCommand(input)),
  GetItem: (input) => client.send(new GetItemCommand(input)),
  Query: (input) => client.send(new QueryCommand(input)),
};

export const handler = async (requests: WireRequest[]) => {
  const group: Promise<unknown>[] = [];
  for (const { operation, input, parallel } of requests) {
    const send = senders[operation];
    if (!send) throw new Error(`bare-sdk: no command for ${operation}`);
    if (!parallel) await Promise.all(group.splice(0));
    group.push(send(input));
  }
  await Promise.all(group);
  return { statusCode: 200 };
};
