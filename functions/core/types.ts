/** The resources of API.md §1, as the API returns them. */
export type Role = 'owner' | 'editor' | 'viewer';

export interface Repository {
  id: string;
  name: string;
  description: string;
  rootFolderId: string;
  role: Role;
  createdAt: string;
  createdBy: string;
  updatedAt: string;
}

export interface Folder {
  id: string;
  repositoryId: string;
  parentId: string | null;
  name: string;
  createdAt: string;
  createdBy: string;
  updatedAt: string;
  updatedBy: string;
}

export interface Document {
  id: string;
  repositoryId: string;
  folderId: string;
  name: string;
  contentType: string;
  content: string;
  size: number;
  version: number;
  createdAt: string;
  createdBy: string;
  updatedAt: string;
  updatedBy: string;
}

/** A document as lists show it: everything but `content`. */
export type DocumentSummary = Omit<Document, 'content'>;

export interface Page<T> {
  items: T[];
  nextToken?: string;
}

/** Who is calling: the JWT `sub`. */
export interface Caller {
  userId: string;
}
