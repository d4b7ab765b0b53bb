/** POST /document/{id}/revisions/{version}/restore — a new version with an old version's content; guarded by If-Match. */
import { type Operation, readOnly } from '#core/http/operation';
import { writeEndpoint } from '#core/http/write-endpoint';
import { revisionParams } from '#core/requests';
import { restoreRevision } from '#core/use-cases/revisions';

export const operation = {
  tag: 'Revisions',
  access: 'editor',
  example: { request: (s) => ({ params: { id: s.document, version: '1' } }) },
  summary: 'Restore a revision',
  description:
    'Makes a new version of the document whose `content` and `contentType` are those of `{version}` (its name and ' +
    'folder stay as they are); the change feed shows it as `updated`. No body. With `If-Match`, it applies only to that ' +
    'version. Needs the `owner` or `editor` role.',
  params: revisionParams,
  ifMatch: true,
  success: { status: 200, description: 'The document, at its new version.', body: 'Document', etag: true },
  errors: {
    'not-found': 'No such document, or you are not a member of its repository; or the document has no such revision (any longer).',
    forbidden: readOnly,
    'quota-exceeded': "The new version's size would take the repository past its storage quota.",
    'precondition-failed': 'The stored version is not the one in `If-Match`; nothing changed.',
  },
} as const satisfies Operation;

export const handler = writeEndpoint(operation, ({ caller, params, precondition }) =>
  restoreRevision(caller, params.id, params.version, precondition),
);
