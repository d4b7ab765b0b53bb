/**
 * The request schemas in openapi.json say exactly what the service accepts: for generated
 * bodies (valid, nearly valid and wild), a standard JSON Schema validator (Ajv, 2020-12) on
 * the document agrees with the zod schemas the handlers validate with — including the rules a
 * check function enforces and `meta` restates for the document (names, well-formed text,
 * lengths in code points). The same for `If-Match` against the parser the handlers use.
 *
 * One gap is by design and not generated here: `content` has a byte limit (413), which JSON
 * Schema cannot express; the document states it in words and bounds it by `maxLength`.
 *
 * What this can and cannot catch. openapi.json is generated from these zod schemas, so where a
 * rule is a plain zod constraint (types, required fields, enums, min/max) the two sides are one
 * rule converted, and only a converter bug could make them disagree. They can disagree, and
 * this is what the file is for (fast, no database), where the service's rule is code the
 * converter cannot see: check functions whose rules `meta` restates by hand for the document
 * (names, well-formed text, lengths in code points), `isUserId` against the `userId` pattern,
 * the parsers of `{version}`, `cursor` and `If-Match` against theirs. Whether the running
 * service answers as the document's request schemas say is checked end to end, on every JSON
 * body the property test sends (test/contract/service.test.ts, `expectServiceAgrees`).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isUserId } from '#core/auth';
import { HttpError } from '#core/errors';
import { validateInput } from '#core/http/validation';
import { parseIfMatch } from '#core/preconditions';
import { changesQuery, memberParams, revisionParams } from '#core/requests';
import { routes } from '#functions/routes';
import { loadOperations } from '#lib/openapi/document';
import openapi from '#openapi.json' with { type: 'json' };
import { bodies, cursorTexts, ifMatches, kindOf, likely, revisionVersions, userIds } from './arbitraries';

const ajv = new Ajv2020({ strict: true, allErrors: true });
ajv.addVocabulary(Object.keys(openapi));
ajv.addSchema(openapi, 'openapi.json');

/** The service's verdict on a body: accepted, or the HttpError it answers. */
const verdict = (schema: Parameters<typeof validateInput>[0]['body'], body: unknown): true | HttpError => {
  try {
    validateInput({ body: schema }, { params: {}, query: {}, body });
    return true;
  } catch (error) {
    if (error instanceof HttpError) return error;
    throw error;
  }
};

/**
 * Rules no JSON Schema keyword can state, which the document states in words instead, so it
 * accepts a little more than the service there and nowhere else: a name's length counted after
 * trimming and NFC, content's bytes of UTF-8 (413), a share link's expiry against the clock and
 * its password's length after NFC.
 */
const statedInWords = (error: HttpError) =>
  error.status === 413 ||
  (error.options.errors ?? []).every(
    (e) =>
      (/(^|\.)name$/.test(e.path) && /at most 255 characters/.test(e.message)) ||
      // A share link's expiry (future, at most a year ahead) and password length (after NFC).
      (e.path === 'expiresAt' && /future|one year/.test(e.message)) ||
      (e.path === 'password' && /after NFC/.test(e.message)),
  );

const operations = await loadOperations();
/** Each request body schema, by the name of its component in openapi.json. */
const bodyOperations = routes.flatMap((route) => {
  const schema = operations.get(route.name)?.body;
  return schema ? [{ name: `${route.name}Request`, schema }] : [];
});

describe('request schemas in openapi.json', () => {
  it.each(bodyOperations.map((b) => [b.name, b] as const))(
    '%s accepts what the service accepts, and refuses the rest but what it states in words',
    (name, { schema }) => {
      type Branch = { required: string[]; not?: { anyOf: { required: string[] }[] } };
      const schemas = openapi.components.schemas as unknown as Record<
        string,
        { properties: Record<string, unknown>; required?: string[]; oneOf?: Branch[] }
      >;
      const jsonSchema = schemas[name]!;
      const properties = Object.keys(jsonSchema.properties);
      // A field added to a schema needs generators here before this test passes.
      for (const property of properties) expect(Object.keys(likely), `no generator for ${name}.${property}`).toContain(kindOf(property));
      const documented = ajv.getSchema(`openapi.json#/components/schemas/${name}`)!;
      let valid = 0;
      const runs = 1500;
      fc.assert(
        // A body of one kind or another (`oneOf`): each kind's fields, mostly without those it excludes.
        fc.property(
          jsonSchema.oneOf
            ? fc.oneof(
                ...jsonSchema.oneOf.map((branch) => {
                  const excluded = (branch.not?.anyOf ?? []).flatMap((b) => b.required);
                  const needed = [...(jsonSchema.required ?? []), ...branch.required];
                  return fc.oneof(
                    // Only what the kind needs, each value a likely one: mostly valid.
                    { weight: 4, arbitrary: fc.record(Object.fromEntries(needed.map((field) => [field, likely[kindOf(field)]!]))) },
                    {
                      weight: 12,
                      arbitrary: bodies(
                        properties.filter((p) => !excluded.includes(p)),
                        [...(jsonSchema.required ?? []), ...branch.required],
                      ),
                    },
                    { weight: 1, arbitrary: bodies(properties, jsonSchema.required ?? []) },
                  );
                }),
              )
            : bodies(properties, jsonSchema.required ?? []),
          (body) => {
            const service = verdict(schema, body);
            if (service === true) valid++;
            const described = `${JSON.stringify(body).slice(0, 300)}: the service says ${service === true ? 'valid' : service.detail}`;
            // Never stricter than the service; looser only where the description says why.
            if (service === true || !documented(body)) expect(documented(body), described).toBe(service === true);
            else expect(statedInWords(service), described).toBe(true);
          },
        ),
        { numRuns: runs },
      );
      // The generators reach both sides of the line, often.
      expect(valid).toBeGreaterThan(runs / 10);
      expect(runs - valid).toBeGreaterThan(runs / 10);
    },
  );

  it('the `userId` path parameter accepts exactly what the service accepts (and every caller a token names)', () => {
    const documented = ajv.compile({ $ref: 'openapi.json#/components/parameters/userId/schema' });
    let valid = 0;
    fc.assert(
      fc.property(userIds, (userId) => {
        let service = true;
        try {
          validateInput({ params: memberParams }, { params: { id: 'repo', userId }, query: {}, body: undefined });
        } catch {
          service = false;
        }
        if (service) valid++;
        expect(documented(userId), JSON.stringify(userId)).toBe(service);
        // One rule for a member named in a path and for a caller's `sub`.
        expect(isUserId(userId), JSON.stringify(userId)).toBe(service);
      }),
      { numRuns: 1500 },
    );
    expect(valid).toBeGreaterThan(150);
    expect(1500 - valid).toBeGreaterThan(150);
  });

  it.each([
    ['version', 'path', revisionParams, revisionVersions, { id: 'doc' }],
    ['cursor', 'query', changesQuery, cursorTexts, {}],
  ] as const)('the `%s` %s parameter accepts exactly what the service accepts', (name, where, schema, values, others) => {
    const documented = ajv.compile({ $ref: `openapi.json#/components/parameters/${name}/schema` });
    let valid = 0;
    fc.assert(
      fc.property(values, (value) => {
        let service = true;
        try {
          const raw = { ...others, [name]: value };
          validateInput(where === 'path' ? { params: schema } : { query: schema }, { params: raw, query: raw, body: undefined });
        } catch {
          service = false;
        }
        if (service) valid++;
        expect(documented(value), JSON.stringify(value)).toBe(service);
      }),
      { numRuns: 1000 },
    );
    expect(valid).toBeGreaterThan(100);
    expect(1000 - valid).toBeGreaterThan(50);
  });

  it('If-Match accepts exactly what the handlers parse', () => {
    const documented = ajv.compile({ $ref: 'openapi.json#/components/parameters/If-Match/schema' });
    let valid = 0;
    fc.assert(
      fc.property(ifMatches, (header) => {
        let parses = true;
        try {
          parseIfMatch(header);
        } catch {
          parses = false;
        }
        if (parses) valid++;
        expect(documented(header), JSON.stringify(header)).toBe(parses);
      }),
      { numRuns: 2000 },
    );
    expect(valid).toBeGreaterThan(100);
  });
});
