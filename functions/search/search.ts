/** GET /search — folders and documents, by name and by what they say, in the caller's repositories. */
import { endpoint } from '#core/http/endpoint';
import type { Operation } from '#core/http/operation';
import { searchQuery } from '#core/requests';
import { search } from '#core/search/search';

export const operation = {
  tag: 'Search',
  access: 'signed-in',
  example: { request: () => ({ query: { q: 'a' } }) },
  summary: 'Search folders and documents',
  description:
    'Names (a word that begins with each query word, or any part of 3 characters or more) and content (inline text; text, JSON, XML and PDF files: the first 1 MiB of text), in every repository you are a member of, or one repository, or below one folder. Best match first: a match in the name above one only in the content, then newest. Changes show within seconds.',
  query: searchQuery,
  success: { status: 200, description: 'A page of hits, best first.', body: 'SearchResults' },
  errors: { 'not-found': 'No such repository or folder, or you are not a member of its repository.' },
} as const satisfies Operation;

export const handler = endpoint(operation, ({ caller, query }) => search(caller, query));
