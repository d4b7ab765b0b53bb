/**
 * Creates a file once, even when several processes start at the same moment (the server and
 * `npm run token`): each writes a private temp file and link()s it into place; link() fails
 * for all but the first, and everyone then reads the winner's content.
 */
import { randomBytes } from 'node:crypto';
import { chmod, link, readFile, rm, writeFile } from 'node:fs/promises';

/** The file's content: what is already there, or else `create()`'s, written with `mode`. */
export async function readOrCreateOnce(path: string, create: () => Promise<string> | string, mode = 0o600): Promise<string> {
  const existing = await readIfPresent(path);
  if (existing?.trim()) return existing;
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(temp, await create(), { mode });
  try {
    await link(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await rm(temp, { force: true });
  }
  await chmod(path, mode);
  return readFile(path, 'utf8');
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
