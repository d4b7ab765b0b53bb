/**
 * `npm run upload -- <folderId> <file> [--name <name>] [--type <contentType>] [--parallel <n>]`, or
 * `npm run upload -- --document <id> <file> [--type <contentType>] [--parallel <n>]` for a new version:
 * sends a file of any size (API.md section 12: POST /uploads, its parts straight to the bucket,
 * complete) with a progress line on stderr, and prints the Document on stdout. Interrupted, the
 * same command resumes it (the state is in `<file>.upload.json` until it is done).
 * API (default http://127.0.0.1:3000) and TOKEN come from the environment.
 */
import { basename, extname } from 'node:path';
import { parseArgs } from 'node:util';
import { filesApiFromEnvironment, UsageError } from '#lib/files-client/api';
import { positionalsLast, runTool } from '#lib/files-client/tool';
import { type UploadTarget, uploadFile } from '#lib/files-client/upload';

const USAGE = `Usage: npm run upload -- <folderId> <file> [--name <name>] [--type <contentType>] [--parallel <1-16>]
       npm run upload -- --document <documentId> <file> [--type <contentType>] [--parallel <1-16>]`;

/** The usual types by extension; anything else is sent as application/octet-stream unless --type says. */
const TYPES: Record<string, string> = {
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.mp4': 'video/mp4',
  '.mp3': 'audio/mpeg',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

await runTool('upload', USAGE, async () => {
  const { positionals, values } = parseArgs({
    args: positionalsLast(process.argv.slice(2), ['name', 'document', 'type', 'parallel']),
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      document: { type: 'string' },
      type: { type: 'string' },
      parallel: { type: 'string', default: '6' },
    },
  });
  const parallel = Number(values.parallel);
  if (!Number.isInteger(parallel) || parallel < 1 || parallel > 16) throw new UsageError('--parallel must be a whole number from 1 to 16');
  let target: UploadTarget;
  let file: string | undefined;
  if (values.document !== undefined) {
    if (positionals.length !== 1 || values.name !== undefined) throw new UsageError(USAGE);
    file = positionals[0]!;
    target = { documentId: values.document };
  } else {
    if (positionals.length !== 2) throw new UsageError(USAGE);
    file = positionals[1]!;
    target = { folderId: positionals[0]!, name: values.name ?? basename(file) };
  }
  const contentType = values.type ?? TYPES[extname(file).toLowerCase()];
  const api = filesApiFromEnvironment();
  const document = await uploadFile({ api, file, target, parallel, ...(contentType ? { contentType } : {}) });
  process.stdout.write(`${JSON.stringify(document)}\n`);
});
