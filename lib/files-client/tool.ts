/** How the file tools end: a usage mistake is exit code 2, a failure one line and exit code 1 (a bug keeps its stack). */
import { ApiError, UsageError } from './api';
import { ContentMismatch } from './download';
import { UploadFailed } from './upload';

export async function runTool(name: string, usage: string, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      const message = (error as Error).message;
      process.stderr.write(`npm run ${name}: ${message}${message === usage ? '' : `\n${usage}`}\n`);
      process.exit(2);
    }
    const expected =
      error instanceof ApiError ||
      error instanceof ContentMismatch ||
      error instanceof UploadFailed ||
      (error as { code?: string }).code === 'ENOENT';
    process.stderr.write(`npm run ${name}: ${expected ? (error as Error).message : ((error as Error).stack ?? String(error))}\n`);
    process.exit(1);
  }
}
