/** Requests and orderings the member tests share (members.test.ts, limits.test.ts). */
import { type Api, listAll, type Repository } from './http';

export const memberPath = (repositoryId: string, userId: string) => `/${repositoryId}/members/${encodeURIComponent(userId)}`;
/** PUT of a role, sent as is (the tests examine the answer). */
export const putMember = (api: Api, repositoryId: string, userId: string, role: unknown) =>
  api.request('PUT', memberPath(repositoryId, userId), { json: { role } });
export const deleteMember = (api: Api, repositoryId: string, userId: string) => api.request('DELETE', memberPath(repositoryId, userId));
/** The caller's repositories as GET / lists them: id → role. */
export const listed = async (api: Api) => new Map((await listAll<Repository>(api, '/', 100)).items.map((r) => [r.id, r.role] as const));
/** Code point order, which `Array.prototype.sort` (UTF-16 units) is not. */
export const byCodePoint = (a: string, b: string) => {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
};
