/**
 * `npm run download -- <documentId> [file]`: writes a document's content to `file` (default: the
 * document's name, here), following GET /document/{id}/content's redirect to the bucket, with a
 * progress line on stderr; the bytes are checked against the Document's sha256 before the file
 * appears. API (default http://127.0.0.1:3000) and TOKEN come from the environment.
 */
import { parseArgs } from 'node:util';
import { filesApiFromEnvironment, UsageError } from '#lib/files-client/api';
import { downloadDocument } from '#lib/files-client/download';
import { positionalsLast, runTool } from '#lib/files-client/tool';

const USAGE = 'Usage: npm run download -- <documentId> [file]';

await runTool('download', USAGE, async () => {
  const { positionals } = parseArgs({ args: positionalsLast(process.argv.slice(2), []), allowPositionals: true, options: {} });
  if (positionals.length < 1 || positionals.length > 2) throw new UsageError(USAGE);
  const api = filesApiFromEnvironment();
  const { file, document } = await downloadDocument({
    api,
    documentId: positionals[0]!,
    ...(positionals[1] ? { file: positionals[1] } : {}),
  });
  process.stderr.write(`wrote ${file} (${document.size} bytes, sha256 ${document.sha256})\n`);
});
