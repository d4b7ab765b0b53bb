/**
 * What the store keeps in an item besides the resource itself, and the mapping back to the
 * API's resources. Items carry their keys and the name key; responses never do.
 */
import type { Document, DocumentSummary, Folder, Repository, Role } from '#core/types';
import type { Item } from './client';
import { accessKey, roleAttribute } from './keys';

export type StoredDocument = Document & { nameKey: string };

export const toRepository = (item: Item, role: Role): Repository => ({
  id: item.id as string,
  name: item.name as string,
  description: item.description as string,
  rootFolderId: item.rootFolderId as string,
  role,
  createdAt: item.createdAt as string,
  createdBy: item.createdBy as string,
  updatedAt: item.updatedAt as string,
});

export const toFolder = (item: Item): Folder => ({
  id: item.id as string,
  repositoryId: item.repositoryId as string,
  parentId: (item.parentId as string | null | undefined) ?? null,
  name: item.name as string,
  createdAt: item.createdAt as string,
  createdBy: item.createdBy as string,
  updatedAt: item.updatedAt as string,
  updatedBy: item.updatedBy as string,
});

export const toDocumentSummary = (record: object): DocumentSummary => {
  const item = record as Item;
  return {
    id: item.id as string,
    repositoryId: item.repositoryId as string,
    folderId: item.folderId as string,
    name: item.name as string,
    contentType: item.contentType as string,
    size: item.size as number,
    version: item.version as number,
    createdAt: item.createdAt as string,
    createdBy: item.createdBy as string,
    updatedAt: item.updatedAt as string,
    updatedBy: item.updatedBy as string,
  };
};

export const toDocument = (record: object): Document => ({
  ...toDocumentSummary(record),
  content: (record as Item).content as string,
});

/** The caller's role in a repository, from an ACCESS item read in the same batch. */
export function roleIn(lookup: (key: ReturnType<typeof accessKey>) => Item | undefined, userId: string, repositoryId: string) {
  return lookup(accessKey(userId))?.[roleAttribute(repositoryId)] as Role | undefined;
}
