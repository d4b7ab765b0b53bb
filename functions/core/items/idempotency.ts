/**
 * Idempotency records (`IDEMPOTENCY#<hash>` / `IDEMPOTENCY`): Powertools' DynamoDB persistence
 * layer in this table's layout (the middleware that uses it: ../http/idempotency.ts).
 *
 * - a record per user and key, `IDEMPOTENCY#<hash>` (not one partition for all: Powertools'
 *   default with a sort key would put every record of the service in one partition key);
 * - stored answers are brotli-compressed: a document's body may pass DynamoDB's 400 KB item
 *   limit as JSON, never compressed;
 * - records expire through the table's TTL attribute (`expiresAt`).
 */
import { brotliCompressSync, brotliDecompressSync } from 'node:zlib';
import { IdempotencyItemAlreadyExistsError } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { IdempotencyRecord } from '@aws-lambda-powertools/idempotency/persistence';
import { marshall } from '@aws-sdk/util-dynamodb';
import { idempotencyKey } from './keys';

/** Powertools' DynamoDB records, in this table's layout, with compressed answers. */
export class TableIdempotencyStore extends DynamoDBPersistenceLayer {
  protected override getKey(hash: string) {
    return marshall(idempotencyKey(hash));
  }

  protected override async _updateRecord(record: IdempotencyRecord): Promise<void> {
    if (record.responseData !== undefined) {
      record.responseData = { brotli: brotliCompressSync(JSON.stringify(record.responseData)).toString('base64') };
    }
    await super._updateRecord(record);
  }

  protected override async _getRecord(hash: string): Promise<IdempotencyRecord> {
    return expanded(await super._getRecord(hash));
  }

  /** A repeat finds the first record in the failed conditional put's answer: expand it there too. */
  protected override async _putRecord(record: IdempotencyRecord): Promise<void> {
    try {
      await super._putRecord(record);
    } catch (error) {
      if (error instanceof IdempotencyItemAlreadyExistsError && error.existingRecord) expanded(error.existingRecord);
      throw error;
    }
  }
}

function expanded(record: IdempotencyRecord): IdempotencyRecord {
  const stored = record.responseData as { brotli?: string } | undefined;
  if (stored?.brotli) record.responseData = JSON.parse(brotliDecompressSync(Buffer.from(stored.brotli, 'base64')).toString('utf8'));
  return record;
}
