import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { DescribeTableCommand, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoDbLocalError, ensureTable, localClient, startDynamoDbLocal } from '#lib/local/dynamodb-local';
import { tableDefinition } from '#lib/table';
import { createTestTable } from '#test/support/dynamodb';
import { useTempDir } from '#test/support/temp-dir';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Pids of live processes whose command line passes `-port <port>` (java and its watchdog). */
async function processesOnPort(port: number): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    const args = cmdline.split('\0');
    const at = args.indexOf('-port');
    if (at !== -1 && args[at + 1] === String(port) && args.some((a) => a.includes('DynamoDBLocal'))) pids.push(Number(entry));
  }
  return pids;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

describe('DynamoDB Local', () => {
  const dataDir = useTempDir('ddb-local-test-');

  it('keeps data in dataDir across a restart', async () => {
    const key = { PK: { S: 'persist' }, SK: { S: 'me' } };
    const first = await startDynamoDbLocal({ dataDir });
    try {
      await ensureTable(first.endpoint, 'persisted');
      const client = localClient(first.endpoint);
      await client.send(new PutItemCommand({ TableName: 'persisted', Item: { ...key, value: { S: 'still here' } } }));
      client.destroy();
    } finally {
      await first.stop();
    }
    expect(await processesOnPort(first.port)).toEqual([]); // stop() waited for the exit

    const second = await startDynamoDbLocal({ dataDir });
    try {
      const client = localClient(second.endpoint);
      const { Item } = await client.send(new GetItemCommand({ TableName: 'persisted', Key: key, ConsistentRead: true }));
      client.destroy();
      expect(Item?.value).toEqual({ S: 'still here' });
    } finally {
      await second.stop();
    }
    expect(await readdir(dataDir)).toContain('shared-local-instance.db'); // -sharedDb: one file
  });

  it('leaves no java behind when its Node parent is SIGKILLed', async () => {
    // A throwaway Node process that starts DynamoDB Local, reports the port, then waits.
    const script = `
      const { startDynamoDbLocal } = await import(${JSON.stringify(new URL('../../lib/local/dynamodb-local.ts', import.meta.url).href)});
      const ddb = await startDynamoDbLocal({});
      console.log(JSON.stringify({ port: ddb.port }));
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: projectRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout! }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`child exited early (${code})`)));
      });
      const { port } = JSON.parse(line) as { port: number };
      expect((await processesOnPort(port)).length).toBeGreaterThan(0);

      child.kill('SIGKILL');
      const gone = await waitFor(async () => (await processesOnPort(port)).length === 0, 8_000);
      expect(gone, `still running: ${(await processesOnPort(port)).join(', ')}`).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('reports a port that is already taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const error = await startDynamoDbLocal({ port }).then(
        async (ddb) => {
          await ddb.stop();
          return undefined;
        },
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(DynamoDbLocalError);
      expect((error as Error).message).toMatch(new RegExp(`${port}`));
      expect(await processesOnPort(port)).toEqual([]);
    } finally {
      blocker.close();
    }
  });
});

describe('ensureTable', () => {
  it('creates the table from lib/table.ts and is idempotent, even when racing', async () => {
    const { endpoint, tableName } = await createTestTable();
    await ensureTable(endpoint, tableName);
    await Promise.all([ensureTable(endpoint, tableName), ensureTable(endpoint, tableName)]);

    const client = localClient(endpoint);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    client.destroy();
    expect(Table?.TableStatus).toBe('ACTIVE');
    expect(Table?.KeySchema).toEqual([
      { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
      { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
    ]);
    expect(Table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
  });
});
