/**
 * `Content-Disposition: attachment` with a document's name (RFC 6266, RFC 8187): a plain
 * `filename` for clients that know only that (its non-ASCII characters, quotes and backslashes
 * replaced by `_`), and `filename*=UTF-8''…` with the exact name, percent-encoded. Served bytes
 * are always an attachment, never a page (docs/api.md: Files).
 */
export function attachment(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeRfc8187(name)}`;
}

/** RFC 8187 `value-chars`: attr-char as is, every other UTF-8 byte as `%XX`. */
function encodeRfc8187(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
