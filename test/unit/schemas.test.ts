import { describe, expect, it } from 'vitest';
import { HttpError } from '#core/errors';
import { validateInput } from '#core/http/validation';
import { createDocumentBody, idParams, MAX_CONTENT_BYTES, pageQuery, updateDocumentBody } from '#core/requests';

function failure(run: () => unknown): HttpError {
  try {
    run();
  } catch (error) {
    if (error instanceof HttpError) return error;
    throw error;
  }
  throw new Error('expected validation to fail');
}

describe('request validation', () => {
  it('applies defaults and normalizes names', () => {
    const { body } = validateInput({ body: createDocumentBody }, { params: {}, query: {}, body: { folderId: 'f1', name: '  a.txt ' } });
    expect(body).toEqual({ folderId: 'f1', name: 'a.txt', content: '', contentType: 'text/plain; charset=utf-8' });
  });

  it('collects every problem with its path', () => {
    const error = failure(() =>
      validateInput({ body: createDocumentBody }, { params: {}, query: {}, body: { folderId: 'bad id!', name: 'a/b', extra: 1 } }),
    );
    expect(error.status).toBe(400);
    expect(error.options.errors?.map((e) => e.path).sort()).toEqual(['extra', 'folderId', 'name']);
  });

  it('answers 413, not 400, for content over 256 KiB of UTF-8', () => {
    const content = 'é'.repeat(MAX_CONTENT_BYTES / 2 + 1); // 2 bytes each
    const error = failure(() =>
      validateInput({ body: createDocumentBody }, { params: {}, query: {}, body: { folderId: 'f', name: 'n', content } }),
    );
    expect(error.status).toBe(413);
    const exact = 'a'.repeat(MAX_CONTENT_BYTES);
    expect(() =>
      validateInput({ body: createDocumentBody }, { params: {}, query: {}, body: { folderId: 'f', name: 'n', content: exact } }),
    ).not.toThrow();
  });

  it('accepts only decimal page sizes from 1 to 100', () => {
    const parse = (limit: string) => validateInput({ query: pageQuery }, { params: {}, query: { limit }, body: undefined }).query;
    expect(parse('1')).toEqual({ limit: 1 });
    expect(parse('100')).toEqual({ limit: 100 });
    for (const bad of ['0', '101', 'abc', '1e2', '-1', '5.5', ' 5']) expect(failure(() => parse(bad)).status).toBe(400);
    expect(validateInput({ query: pageQuery }, { params: {}, query: undefined, body: undefined }).query).toEqual({ limit: 50 });
  });

  it('validates ids and media types', () => {
    expect(failure(() => validateInput({ params: idParams }, { params: { id: 'x'.repeat(65) }, query: {}, body: undefined })).status).toBe(
      400,
    );
    const update = (contentType: string) =>
      validateInput({ body: updateDocumentBody }, { params: {}, query: {}, body: { id: 'd1', contentType } });
    expect(() => update('text/markdown; charset="utf-8"')).not.toThrow();
    expect(failure(() => update('not a media type')).status).toBe(400);
  });

  it('rejects a body that is not an object', () => {
    for (const body of [[1], null, 'text', 3]) {
      expect(failure(() => validateInput({ body: createDocumentBody }, { params: {}, query: {}, body })).status).toBe(400);
    }
  });

  it('rejects lone surrogates, which have no UTF-8 form', () => {
    const body = (fields: Record<string, unknown>) => ({ folderId: 'f', name: 'n', ...fields });
    for (const fields of [{ name: 'a\ud800b' }, { content: 'x\udc00' }]) {
      const error = failure(() => validateInput({ body: createDocumentBody }, { params: {}, query: {}, body: body(fields) }));
      expect(error.status).toBe(400);
      expect(error.options.errors?.[0]?.path).toBe(Object.keys(fields)[0]);
    }
  });
});
