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

/**
 * The command line with every argument that is not an option after a `--`: ids are URL-safe and
 * may begin with `-` (`-9xQ…`), which parseArgs would take for an unknown option. `valued`: the
 * options that take a value (the token after each is theirs).
 */
export function positionalsLast(argv: readonly string[], valued: readonly string[]): string[] {
  const options: string[] = [];
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!token.startsWith('--')) positionals.push(token);
    // `--name=value`: a value that begins with `-` is then not taken for an option either.
    else if (valued.includes(token.slice(2)) && !token.includes('=') && i + 1 < argv.length) options.push(`${token}=${argv[++i]}`);
    else options.push(token);
  }
  return [...options, '--', ...positionals];
}
