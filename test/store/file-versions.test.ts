/**
 * The store's file versions (functions/core/items/document.ts: writeFileVersion, readVersionTarget), which the
 * uploads write with, against the real DynamoDB Local: what they store, what they check, what they do to the
 * repository's usage, and that a failed `extra` step comes back as it is. The objects are not touched here (a
 * version names its object by key); the bytes' round trip is test/documents/content.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { check } from '#core/db/client';
import { itemExists } from '#core/db/conditions';
import { HttpError } from '#core/errors';
import { newId } from '#core/ids';
import { createDocument, ExtraStepFailed, type FileVersion, readVersionTarget, writeFileVersion } from '#core/items/document';
import { contentKey, documentKey, usageKey } from '#core/items/keys';
import { putMember } from '#core/items/member';
import { createRepository } from '#core/items/repository';
import type { Caller } from '#core/resources';
import { rawItem } from '#test/support/dynamodb';
import { useTable } from '#test/support/fixture';

let n = 0;
const newCaller = (): Caller => ({ userId: `files-${Date.now()}-${n++}` });
const file = (size: number): FileVersion => ({
  objectKey: `files/r/d/${newId()}`,
  size,
  sha256: 'a'.repeat(64),
  contentType: 'application/pdf',
});
const statusOf = async (work: Promise<unknown>) => {
  try {
    await work;
    return 'ok';
  } catch (error) {
    return error instanceof HttpError ? error.status : error;
  }
};

useTable();

async function world() {
  const owner = newCaller();
  const viewer = newCaller();
  const repository = await createRepository(owner, { name: 'Files', description: '' });
  await putMember(owner, repository.id, viewer.userId, 'viewer');
  return { owner, viewer, stranger: newCaller(), repository, folderId: repository.rootFolderId };
}

describe('readVersionTarget', () => {
  it('checks a new document: the folder, the role, the name and the id; answers the repository and its usage', async () => {
    const { owner, viewer, stranger, repository, folderId } = await world();
    const taken = await createDocument(owner, { folderId, name: 'taken.pdf', content: '12345', contentType: 'text/plain' });
    const id = `${repository.id}${newId()}`;
    expect(await readVersionTarget(owner, { kind: 'create', folderId, name: 'new.pdf', id })).toEqual({
      repositoryId: repository.id,
      documentId: id,
      folderId,
      name: 'new.pdf',
      usage: { bytes: 5, quota: 10 * 1024 ** 3 },
    });
    expect(await statusOf(readVersionTarget(owner, { kind: 'create', folderId, name: 'TAKEN.pdf', id }))).toBe(409);
    expect(await statusOf(readVersionTarget(owner, { kind: 'create', folderId, name: 'other.pdf', id: taken.id }))).toBe(409);
    expect(await statusOf(readVersionTarget(viewer, { kind: 'create', folderId, name: 'new.pdf', id }))).toBe(403);
    expect(await statusOf(readVersionTarget(stranger, { kind: 'create', folderId, name: 'new.pdf', id }))).toBe(404);
    expect(await statusOf(readVersionTarget(owner, { kind: 'create', folderId: `${repository.id}${newId()}`, name: 'x', id }))).toBe(404);
  });

  it('checks a new version: the document, the role, expectedVersion', async () => {
    const { owner, viewer, repository, folderId } = await world();
    const document = await createDocument(owner, { folderId, name: 'a.txt', content: '123', contentType: 'text/plain' });
    expect(await readVersionTarget(owner, { kind: 'update', documentId: document.id, expectedVersion: 1 })).toEqual({
      repositoryId: repository.id,
      documentId: document.id,
      folderId,
      name: 'a.txt',
      version: 1,
      usage: { bytes: 3, quota: 10 * 1024 ** 3 },
    });
    expect(await statusOf(readVersionTarget(owner, { kind: 'update', documentId: document.id, expectedVersion: 2 }))).toBe(412);
    expect(await statusOf(readVersionTarget(viewer, { kind: 'update', documentId: document.id }))).toBe(403);
    expect(await statusOf(readVersionTarget(owner, { kind: 'update', documentId: `${repository.id}${newId()}` }))).toBe(404);
  });
});

describe('writeFileVersion', () => {
  it('makes a file document: DOC metadata with objectKey and keptBytes, no content item yet; adds to the usage', async () => {
    const { owner, folderId, repository } = await world();
    const id = `${repository.id}${newId()}`;
    const version = file(1000);
    const document = await writeFileVersion(owner, { kind: 'create', folderId, name: 'scan.pdf', id }, version, { reserved: false });
    expect(document).toMatchObject({ id, storage: 'file', size: 1000, sha256: version.sha256, contentType: 'application/pdf', version: 1 });
    expect(document).not.toHaveProperty('content');
    expect(await rawItem(documentKey(id))).toMatchObject({ objectKey: version.objectKey, keptBytes: 1000, contentVersion: 1 });
    expect(await rawItem(contentKey(id, 1))).toBeUndefined();
    expect(await rawItem(usageKey(repository.id))).toMatchObject({ bytes: 1000 });
  });

  it('replaces inline text with a reserved file: the usage stays (reserved at upload start), keptBytes grows, the text goes to CONTENT#1', async () => {
    const { owner, folderId, repository } = await world();
    const document = await createDocument(owner, { folderId, name: 'a.txt', content: '123', contentType: 'text/plain' });
    const version = file(50);
    const updated = await writeFileVersion(owner, { kind: 'update', documentId: document.id, expectedVersion: 1 }, version, {
      reserved: true,
    });
    expect(updated).toMatchObject({ storage: 'file', version: 2, size: 50 });
    expect(await rawItem(documentKey(document.id))).toMatchObject({ keptBytes: 53, contentVersion: 2, objectKey: version.objectKey });
    expect(await rawItem(documentKey(document.id))).not.toHaveProperty('content');
    expect(await rawItem(contentKey(document.id, 1))).toMatchObject({ content: '123' });
    expect(await rawItem(contentKey(document.id, 2))).toBeUndefined();
    expect(await rawItem(usageKey(repository.id))).toMatchObject({ bytes: 3 });
    expect(
      await statusOf(writeFileVersion(owner, { kind: 'update', documentId: document.id, expectedVersion: 1 }, file(1), { reserved: true })),
    ).toBe(412);
  });

  it('throws a failed `extra` step as ExtraStepFailed (no retry), before any other explanation, and writes nothing', async () => {
    const { viewer, folderId, repository } = await world();
    const extra = () => ({ upload: check({ PK: `REPO#${repository.id}`, SK: 'UPLOAD#missing' }, itemExists) });
    const id = `${repository.id}${newId()}`;
    const failed = await writeFileVersion(viewer, { kind: 'create', folderId, name: 'x.pdf', id }, file(1), {
      reserved: false,
      extra,
    }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(ExtraStepFailed);
    expect((failed as ExtraStepFailed).failure.failed.has('upload')).toBe(true);
    expect(await rawItem(documentKey(id))).toBeUndefined();
    // Without it, the viewer's role explains the refusal.
    expect(await statusOf(writeFileVersion(viewer, { kind: 'create', folderId, name: 'x.pdf', id }, file(1), { reserved: false }))).toBe(
      403,
    );
    // No version written in this repository yet, so no usage item (0 bytes): none made by the refusals.
    expect(await rawItem(usageKey(repository.id))).toBeUndefined();
  });

  it('answers 409 quota-exceeded past the quota when not reserved', async () => {
    const { owner, folderId, repository } = await world();
    process.env.QUOTA_BYTES = '100';
    try {
      const id = `${repository.id}${newId()}`;
      const refused = await writeFileVersion(owner, { kind: 'create', folderId, name: 'big.pdf', id }, file(101), {
        reserved: false,
      }).catch((error: unknown) => error);
      expect(refused).toMatchObject({ status: 409, kind: 'quota-exceeded' });
      // Reserved bytes were counted at upload start: the version is written.
      await writeFileVersion(owner, { kind: 'create', folderId, name: 'big.pdf', id }, file(101), { reserved: true });
      // The refused write made no usage item (a first write past the quota alone), the reserved one adds nothing.
      expect(await rawItem(usageKey(repository.id))).toBeUndefined();
    } finally {
      delete process.env.QUOTA_BYTES;
    }
  });
});
