/**
 * The mapping from a numbered change (as the feed stores it) to an EventBridge entry
 * (docs/api.md: Events), for every kind of change; and the deployed sink, against a local HTTP
 * endpoint that answers as EventBridge's PutEvents does: ten entries a call, to the stack's bus,
 * and a batch that EventBridge refuses in part fails (the worker retries it).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { changeKinds, changeSchema, changeTypes, roles } from '#core/resources';
import { EVENT_SOURCE, type NumberedChange, publishChanges, toEvent } from '#functions/worker/events';

const id = fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/);
const time = fc.date({ min: new Date('2020-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());

/** A change as a write records it, with whatever optional fields its kind has. */
const changes = fc.record(
  {
    type: fc.constantFrom(...changeTypes),
    kind: fc.constantFrom(...changeKinds),
    id,
    folderId: fc.option(id, { nil: null }),
    previousFolderId: id,
    name: fc.string({ minLength: 1, maxLength: 20 }),
    version: fc.integer({ min: 1, max: 10_000 }),
    role: fc.constantFrom(...roles),
    at: time,
    by: fc.string({ minLength: 1, maxLength: 20 }),
  },
  { requiredKeys: ['type', 'kind', 'id', 'at', 'by'] },
);

/** The numbered item as DynamoDB holds it: the change, its repository and number, keys and TTL. */
const stored = fc.tuple(changes, id, fc.integer({ min: 1, max: 10 ** 12 - 1 })).map(([change, repositoryId, seq]) => ({
  ...change,
  repositoryId,
  seq,
  PK: `FEED#${repositoryId}`,
  SK: `S#${String(seq).padStart(12, '0')}`,
  expiresAt: Math.ceil(Date.parse(change.at) / 1000) + 31 * 86_400,
}));

describe('toEvent', () => {
  it('is the change with its repository and number, as detail; the type as detail-type; `at` as the time', () => {
    fc.assert(
      fc.property(stored, (item) => {
        const event = toEvent(item as NumberedChange & Record<string, unknown>);
        const { PK: _pk, SK: _sk, expiresAt: _ttl, repositoryId, seq, ...change } = item;
        expect(event.Source).toBe(EVENT_SOURCE);
        expect(event.DetailType).toBe(change.type);
        expect(event.Time.toISOString()).toBe(change.at);
        const detail = JSON.parse(event.Detail) as Record<string, unknown>;
        // Exactly the change and where it is: no storage attribute leaks into the event.
        expect(detail).toEqual({ repositoryId, seq, ...change });
        const { repositoryId: _r, seq: _s, ...fields } = detail;
        expect(z.safeParse(changeSchema, fields).success, JSON.stringify(fields)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('maps a concrete move', () => {
    const event = toEvent({
      type: 'moved',
      kind: 'folder',
      id: 'F1',
      folderId: 'P2',
      previousFolderId: 'P1',
      name: 'Drafts',
      version: 4,
      at: '2026-01-02T03:04:05.678Z',
      by: 'alice',
      repositoryId: 'R1',
      seq: 42,
      PK: 'FEED#R1',
      SK: 'S#000000000042',
      expiresAt: 1_770_000_000,
    });
    expect(event).toEqual({
      Source: 'documents.service',
      DetailType: 'moved',
      Detail:
        '{"repositoryId":"R1","seq":42,"type":"moved","kind":"folder","id":"F1","folderId":"P2","previousFolderId":"P1","name":"Drafts","version":4,"at":"2026-01-02T03:04:05.678Z","by":"alice"}',
      Time: new Date('2026-01-02T03:04:05.678Z'),
    });
  });
});

describe('publishing to EventBridge (the deployed sink)', () => {
  let server: Server;
  const calls: { target: string; body: { Entries: Record<string, unknown>[] } }[] = [];
  let refuse = 0;
  const saved = { ...process.env };

  beforeAll(async () => {
    server = createServer(async (req: IncomingMessage, res) => {
      let text = '';
      for await (const chunk of req) text += chunk;
      const body = JSON.parse(text) as { Entries: Record<string, unknown>[] };
      calls.push({ target: String(req.headers['x-amz-target']), body });
      const failed = Math.min(refuse, body.Entries.length);
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(
        JSON.stringify({
          FailedEntryCount: failed,
          Entries: body.Entries.map((_, i) => (i < failed ? { ErrorCode: 'InternalFailure', ErrorMessage: 'no' } : { EventId: `e${i}` })),
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address() as { port: number };
    Object.assign(process.env, {
      EVENT_BUS_NAME: 'documents-events',
      AWS_ENDPOINT_URL_EVENTBRIDGE: `http://127.0.0.1:${address.port}`,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
    });
  });
  afterAll(async () => {
    process.env = saved;
    await new Promise((resolve) => server.close(resolve));
  });

  const numbered = (n: number): NumberedChange[] =>
    Array.from({ length: n }, (_, i) => ({
      type: 'created' as const,
      kind: 'folder' as const,
      id: `F${i}`,
      folderId: 'R1',
      name: `f${i}`,
      version: 1,
      at: '2026-01-01T00:00:00.000Z',
      by: 'alice',
      repositoryId: 'R1',
      seq: i + 1,
    }));

  it('sends ten entries a call, in order, to the stack’s bus', async () => {
    calls.length = 0;
    await publishChanges(numbered(23));
    expect(calls.map((call) => call.body.Entries.length)).toEqual([10, 10, 3]);
    expect(calls[0]!.target).toBe('AWSEvents.PutEvents');
    const entries = calls.flatMap((call) => call.body.Entries);
    expect(entries.map((entry) => JSON.parse(entry.Detail as string).seq)).toEqual(numbered(23).map((c) => c.seq));
    expect(entries[0]).toMatchObject({ EventBusName: 'documents-events', Source: 'documents.service', DetailType: 'created' });
  });

  it('fails the batch when EventBridge refuses an entry, so the worker tries again', async () => {
    refuse = 1;
    await expect(publishChanges(numbered(3))).rejects.toThrow(/refused 1 of 3/);
    refuse = 0;
  });
});
