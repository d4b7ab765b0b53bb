/**
 * What counts as a test asserting a status (test/support/asserted-statuses.ts), for the
 * completeness check: only an exact status pinned by an equality matcher or a helper that throws
 * on any other, never one tolerated among others, one compared only in a condition, or one read
 * before an await and compared after.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { assertedStatuses, markAsserted, watchStatus } from '#test/support/asserted-statuses';

const answer = (status: number, operation = 'GET /folder/{id}') =>
  watchStatus({ text: '' } as { status: number; text: string }, { operation, status });
const asserted = () => Object.fromEntries([...assertedStatuses].map(([operation, statuses]) => [operation, [...statuses].sort()]));

beforeEach(() => assertedStatuses.clear());

describe('a status counts as asserted', () => {
  it('when an equality matcher pins the status just read', () => {
    const res = answer(404);
    expect(res.status).toBe(404);
    const other = answer(200, 'POST /folder');
    expect(other.status, `${other.text}`).toEqual(200);
    expect(asserted()).toEqual({ 'GET /folder/{id}': [404], 'POST /folder': [200] });
  });

  it('for each answer of a list of statuses compared exactly', () => {
    const answers = [answer(200), answer(201, 'POST /folder'), answer(200)];
    expect(answers.map((r) => r.status)).toStrictEqual([200, 201, 200]);
    expect(asserted()).toEqual({ 'GET /folder/{id}': [200], 'POST /folder': [201] });
  });

  it('when a helper that throws on any other status took it', () => {
    markAsserted(answer(409, 'PUT /folder'));
    expect(asserted()).toEqual({ 'PUT /folder': [409] });
  });
});

describe('a status does not count', () => {
  it('when a test tolerates it among others', () => {
    const res = answer(404);
    expect([200, 404]).toContain(res.status);
    expect(res.status === 200 || res.status === 404).toBe(true);
    expect(asserted()).toEqual({});
  });

  it('when a matcher is negated, or another number is compared', () => {
    const res = answer(503);
    expect(res.status).not.toBe(200);
    void res.status;
    expect(2 + 2).toBe(4);
    expect(asserted()).toEqual({});
  });

  it('when it was read in a condition (a retried 503) and the test went on after an await', async () => {
    const retried = answer(503, 'POST /document');
    if (retried.status === 503) await Promise.resolve();
    expect(503).toBe(503);
    expect(asserted()).toEqual({});
  });

  it('when the list compared is not the statuses read', () => {
    const answers = [answer(200), answer(404)];
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toEqual([200]);
    expect(asserted()).toEqual({});
  });

  it('for an object that is not a watched answer', () => {
    markAsserted({ status: 200 });
    expect(asserted()).toEqual({});
  });
});
