/**
 * The upload panel's list: files picked or dropped (folders keep their tree: each file's
 * relative path makes the folders it needs), clashes settled by the person's choice, then sent
 * one file at a time (each file's parts in parallel).
 */
import { signal } from '@preact/signals';
import { expectData } from '../../../lib/files-client/errors';
import { announce } from '../components/ui';
import { t } from '../messages';
import { api } from '../session';
import { type ClashChoice, clashPolicy, freeName } from './clash';
import { FileUpload } from './uploader';

export const uploads = signal<FileUpload[]>([]);
/** The clash being asked about, and how the dialog answers it. */
export const clashQuestion = signal<{ name: string; answer(choice: ClashChoice, applyToAll: boolean): void } | undefined>(undefined);

/** What a folder already holds, by case-folded name: documents' ids, folders' ids. */
export interface FolderNames {
  documents: Map<string, string>;
  folders: Map<string, string>;
}

async function namesIn(folderId: string): Promise<FolderNames> {
  const names: FolderNames = { documents: new Map(), folders: new Map() };
  for (let nextToken: string | undefined, pages = 0; pages === 0 || nextToken; pages++) {
    const page = expectData(
      'GET /folder/{id}/documents',
      await api.GET('/folder/{id}/documents', {
        params: { path: { id: folderId }, query: { limit: 100, ...(nextToken ? { nextToken } : {}) } },
      }),
    );
    for (const item of page.items) names.documents.set(item.name.toLowerCase(), item.id);
    nextToken = page.nextToken;
  }
  for (let nextToken: string | undefined, pages = 0; pages === 0 || nextToken; pages++) {
    const page = expectData(
      'GET /folder/{id}/folders',
      await api.GET('/folder/{id}/folders', {
        params: { path: { id: folderId }, query: { limit: 100, ...(nextToken ? { nextToken } : {}) } },
      }),
    );
    for (const item of page.items) names.folders.set(item.name.toLowerCase(), item.id);
    nextToken = page.nextToken;
  }
  return names;
}

let running: Promise<void> = Promise.resolve();

/** Adds `files` (with their paths below `folderId`, for a folder upload) to the panel and sends them. */
export function uploadFiles(files: { file: File; path: string }[], folderId: string, onDone: () => void): void {
  const policy = clashPolicy(
    (name) => new Promise((resolve) => (clashQuestion.value = { name, answer: (choice, applyToAll) => resolve({ choice, applyToAll }) })),
  );
  const folderIds = new Map<string, string>([['', folderId]]);
  const folderNames = new Map<string, Promise<FolderNames>>();
  const names = (id: string) => {
    let found = folderNames.get(id);
    if (!found) {
      found = namesIn(id);
      folderNames.set(id, found);
    }
    return found;
  };
  /** The folder for a relative directory path, made when missing. */
  const folderFor = async (dir: string): Promise<string> => {
    const known = folderIds.get(dir);
    if (known) return known;
    const slash = dir.lastIndexOf('/');
    const parentId = await folderFor(slash < 0 ? '' : dir.slice(0, slash));
    const name = dir.slice(slash + 1);
    const existing = (await names(parentId)).folders.get(name.toLowerCase());
    const id = existing ?? expectData('POST /folder', await api.POST('/folder', { body: { parentId, name } })).id;
    (await names(parentId)).folders.set(name.toLowerCase(), id);
    folderIds.set(dir, id);
    return id;
  };

  running = running.then(async () => {
    for (const { file, path } of files) {
      const slash = path.lastIndexOf('/');
      const target = await folderFor(slash < 0 ? '' : path.slice(0, slash));
      const inFolder = await names(target);
      let name = file.name;
      const existing = inFolder.documents.get(name.toLowerCase());
      let upload: FileUpload;
      if (existing) {
        const choice = await policy.decide(path);
        clashQuestion.value = undefined;
        if (choice === 'skip') continue;
        if (choice === 'replace') upload = new FileUpload(api, file, { documentId: existing }, path);
        else {
          name = freeName(name, new Set(inFolder.documents.keys()));
          upload = new FileUpload(api, file, { folderId: target, name }, path);
        }
      } else upload = new FileUpload(api, file, { folderId: target, name }, path);
      inFolder.documents.set(name.toLowerCase(), 'pending');
      uploads.value = [...uploads.value, upload];
      await upload.run();
      const { status, error } = upload.state.value;
      // Each file's outcome is announced; its progress bar is in the panel.
      announce(`${upload.label}: ${status === 'done' ? t.uploadDone : status === 'failed' ? t.uploadFailed(error ?? '') : status}`);
      onDone();
    }
  });
}
