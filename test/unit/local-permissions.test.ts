/**
 * IAM on this machine (lib/local/permissions.ts) in the fast tier: the actions a request needs,
 * a function's DynamoDB requests refused outside its grants before they are sent, and its S3
 * requests signed with its own key. The clients here send nothing: a last middleware answers.
 */
import { DynamoDBClient, GetItemCommand, PutItemCommand, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import {
  AccessDenied,
  actionsNeeded,
  type DeclaredFunction,
  enforcePermissions,
  runAsFunction,
  signAsServedFunction,
} from '#lib/local/permissions';

describe('the actions a request needs', () => {
  it('are its own action, and GetItem too when it asks for the old item on a failed condition', () => {
    expect(actionsNeeded('Query', {})).toEqual(['dynamodb:Query']);
    expect(actionsNeeded('PutItem', { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem']);
    expect(actionsNeeded('PutItem', { ReturnValuesOnConditionCheckFailure: 'NONE' })).toEqual(['dynamodb:PutItem']);
  });

  it('are, for a transaction, one action per kind of step, sorted and once each', () => {
    expect(
      actionsNeeded('TransactWriteItems', {
        TransactItems: [{ Update: {} }, { Put: {} }, { Delete: {} }, { ConditionCheck: {} }, { Put: {} }],
      }),
    ).toEqual(['dynamodb:ConditionCheckItem', 'dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
    expect(
      actionsNeeded('TransactWriteItems', { TransactItems: [{ ConditionCheck: { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } }] }),
    ).toEqual(['dynamodb:ConditionCheckItem', 'dynamodb:GetItem']);
    expect(
      actionsNeeded('TransactWriteItems', { TransactItems: [{ Update: { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } as never }] }),
    ).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
    expect(
      actionsNeeded('TransactWriteItems', { TransactItems: [{ Put: { ReturnValuesOnConditionCheckFailure: 'NONE' } as never }] }),
    ).toEqual(['dynamodb:PutItem']);
    expect(actionsNeeded('TransactWriteItems', {})).toEqual([]);
  });
});

/** A DynamoDB client held to the grants, whose requests that pass are answered here (never sent). */
function heldClient() {
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
  });
  enforcePermissions(client);
  enforcePermissions(client); // once is enough: a second call adds nothing
  const sent: string[] = [];
  client.middlewareStack.add(
    (_next, context) => async () => {
      sent.push(context.commandName ?? '');
      return { output: { $metadata: {} }, response: {} } as never;
    },
    { step: 'finalizeRequest', name: 'answerHere', priority: 'low' },
  );
  return { client, sent };
}

const reader: DeclaredFunction = { name: 'GetThing', method: 'GET', dynamodb: ['dynamodb:GetItem'] };
const item = { TableName: 't', Item: { PK: { S: 'a' }, SK: { S: 'b' } } };

describe('a function’s DynamoDB requests', () => {
  it('go through when its grants hold every action they need; a request outside any function is held to none', async () => {
    const { client, sent } = heldClient();
    await runAsFunction(reader, () => client.send(new GetItemCommand({ TableName: 't', Key: item.Item })));
    await client.send(new PutItemCommand(item));
    expect(sent).toEqual(['GetItemCommand', 'PutItemCommand']);
  });

  it('are refused before they are sent, as IAM refuses them: AccessDeniedException naming the function and the action', async () => {
    const { client, sent } = heldClient();
    expect(new AccessDenied('F', 'dynamodb:Scan').name).toBe('AccessDeniedException');
    await expect(runAsFunction(reader, () => client.send(new PutItemCommand(item)))).rejects.toMatchObject({
      name: 'AccessDeniedException',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
      message:
        'User: arn:aws:sts::000000000000:assumed-role/GetThingRole/GetThing is not authorized to perform: dynamodb:PutItem on resource: the table because no identity-based policy allows the dynamodb:PutItem action',
    });
    const transaction = new TransactWriteItemsCommand({ TransactItems: [{ Put: item }] });
    await expect(
      runAsFunction({ ...reader, dynamodb: ['dynamodb:GetItem', 'dynamodb:UpdateItem'] }, () => client.send(transaction)),
    ).rejects.toMatchObject({
      name: 'AccessDeniedException',
    });
    expect(sent).toEqual([]);
  });

  it('count the actions a write route is granted for its Idempotency-Key record', async () => {
    const { client, sent } = heldClient();
    const writer: DeclaredFunction = { name: 'PostThing', method: 'POST', dynamodb: ['dynamodb:UpdateItem'] };
    await runAsFunction(writer, () => client.send(new PutItemCommand(item)));
    expect(sent).toEqual(['PutItemCommand']);
  });
});

describe('a function’s S3 requests', () => {
  it('are signed with its own key; outside any function with the runtime’s; a second install changes nothing', async () => {
    const client = new S3Client({ region: 'us-east-1', credentials: { accessKeyId: 'own', secretAccessKey: 'own-secret' } });
    const keyOf = (name: string) => ({ accessKeyId: `fn-${name}`, secretAccessKey: `secret-${name}` });
    signAsServedFunction(client, keyOf, { accessKeyId: 'runtime', secretAccessKey: 'runtime-secret' });
    signAsServedFunction(client, () => ({ accessKeyId: 'second', secretAccessKey: 'second' }));
    const credentials = (client.config as unknown as { credentials: () => Promise<{ accessKeyId: string }> }).credentials;
    expect((await runAsFunction(reader, () => credentials())).accessKeyId).toBe('fn-GetThing');
    expect((await credentials()).accessKeyId).toBe('runtime');
    expect(Object.getOwnPropertyDescriptor(client.config, 'credentials')).toMatchObject({
      enumerable: true,
      configurable: true,
      writable: true,
    });

    const plain = new S3Client({ region: 'us-east-1', credentials: { accessKeyId: 'own', secretAccessKey: 'own-secret' } });
    signAsServedFunction(plain, keyOf);
    const own = (plain.config as unknown as { credentials: () => Promise<{ accessKeyId: string }> }).credentials;
    expect((await own()).accessKeyId).toBe('own');
    client.destroy();
    plain.destroy();
  });
});
