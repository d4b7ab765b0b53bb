/**
 * The searchable text of a file document (docs/api.md: Search): `text/*`, `application/json`
 * and `application/xml` as text in their declared charset (UTF-8 when none), PDF through its
 * text layer (unpdf, a serverless build of Mozilla's pdf.js: JavaScript only, no native binary
 * in Lambda; no OCR). Within a budget: at most the first MAX_TEXT_BYTES of a text file are read
 * (one ranged GET), a PDF only up to MAX_PDF_BYTES (its text needs the cross-reference table at
 * the end) and for at most PDF_TIME_MS. A file that cannot be read as text is indexed by its name
 * only, and not tried again until its content changes; S3 failures throw, so the stream retries
 * them within its retry budget.
 */
import { TextDecoder } from 'node:util';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { bucketName, s3 } from '../bucket';
import { logger } from '../logger';
import { baseContentType } from './search-index';

/** The first 1 MiB of text of each document is searched. */
export const MAX_TEXT_BYTES = 1024 * 1024;
export const MAX_PDF_BYTES = 32 * 1024 * 1024;
export const PDF_TIME_MS = 10_000;

const TEXT_TYPES = new Set(['application/json', 'application/xml']);

export type TextKind = 'text' | 'pdf';

/** What kind of text a content type has, if any. */
export function textKindOf(contentType: string): TextKind | undefined {
  const type = baseContentType(contentType);
  if (type.startsWith('text/') || TEXT_TYPES.has(type)) return 'text';
  if (type === 'application/pdf') return 'pdf';
  return undefined;
}

/** The declared charset (`; charset=…`), if the runtime's TextDecoder knows it. */
function decoderFor(contentType: string): TextDecoder {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8');
  } catch {
    return new TextDecoder('utf-8');
  }
}

/** At most `maxBytes` of UTF-8, cut at a character. */
export function cutText(text: string, maxBytes = MAX_TEXT_BYTES): string {
  if (text.length <= maxBytes / 3 || Buffer.byteLength(text) <= maxBytes) return text;
  let cut = Buffer.from(text).subarray(0, maxBytes).toString('utf8');
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  return cut;
}

async function readBytes(objectKey: string, lastByte: number): Promise<Uint8Array> {
  const answer = await s3().send(new GetObjectCommand({ Bucket: bucketName(), Key: objectKey, Range: `bytes=0-${lastByte}` }));
  return answer.Body ? await answer.Body.transformToByteArray() : new Uint8Array();
}

/** The text to index for a file, '' when it has none that can be read. */
export async function extractFileText(file: { objectKey: string; contentType: string; size: number }): Promise<string> {
  const kind = textKindOf(file.contentType);
  if (!kind || file.size === 0) return '';
  if (kind === 'text') {
    const bytes = await readBytes(file.objectKey, Math.min(file.size, MAX_TEXT_BYTES) - 1);
    return cutText(decoderFor(file.contentType).decode(bytes));
  }
  if (file.size > MAX_PDF_BYTES) return '';
  const bytes = await readBytes(file.objectKey, file.size - 1);
  try {
    return cutText(await pdfText(bytes));
  } catch (error) {
    logger.warn('search: a PDF could not be read; indexed by name only', { objectKey: file.objectKey, error: error as Error });
    return '';
  }
}

async function pdfText(bytes: Uint8Array): Promise<string> {
  const { extractText, getDocumentProxy } = await import('unpdf');
  const pdf = await getDocumentProxy(bytes);
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`PDF text took over ${PDF_TIME_MS} ms`)), PDF_TIME_MS);
    });
    const { text } = await Promise.race([extractText(pdf, { mergePages: true }), timeout]);
    return text;
  } finally {
    clearTimeout(timer);
    await pdf.destroy().catch(() => undefined);
  }
}
