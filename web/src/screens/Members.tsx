/** Members and roles of a repository: add by user id (there is no directory yet), change, remove, leave. */
import { useEffect, useState } from 'preact/hooks';
import type { components, Repository } from '../../../lib/client/index';
import { expectData } from '../../../lib/files-client/errors';
import { announce, Dialog, ErrorText } from '../components/ui';
import { t } from '../messages';
import { href, navigate } from '../router';
import { api, user } from '../session';

type Member = components['schemas']['Member'];
type Role = Member['role'];
const ROLES: Role[] = ['owner', 'editor', 'viewer'];

export function Members(props: { repository: Repository; onClose(): void }) {
  const [members, setMembers] = useState<Member[]>([]);
  const [error, setError] = useState<unknown>();
  const isOwner = props.repository.role === 'owner';
  const id = props.repository.id;
  const load = async () =>
    setMembers(expectData('GET /{id}/members', await api.GET('/{id}/members', { params: { path: { id }, query: { limit: 100 } } })).items);
  useEffect(() => {
    load().catch(setError);
  }, []);
  const put = async (userId: string, role: Role) => {
    expectData('PUT /{id}/members/{userId}', await api.PUT('/{id}/members/{userId}', { params: { path: { id, userId } }, body: { role } }));
    await load();
    announce(`${userId}: ${t.roles[role]}`);
  };
  const remove = async (userId: string) => {
    const answer = await api.DELETE('/{id}/members/{userId}', { params: { path: { id, userId } } });
    if (!answer.response.ok) throw new Error(String(answer.response.status));
    if (userId === user.value) navigate(href.repositories());
    else await load();
  };
  return (
    <Dialog title={t.members} onClose={props.onClose}>
      <table>
        <thead>
          <tr>
            <th scope="col">{t.userId}</th>
            <th scope="col">{t.role}</th>
            <th scope="col">
              <span class="visually-hidden">{t.remove}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {members.map((m) => (
            <tr key={m.userId}>
              <td>{m.userId}</td>
              <td>
                {isOwner ? (
                  <select
                    aria-label={`${t.role}: ${m.userId}`}
                    value={m.role}
                    onChange={(e) => put(m.userId, e.currentTarget.value as Role).catch(setError)}
                  >
                    {ROLES.map((r) => (
                      <option key={r} value={r}>
                        {t.roles[r]}
                      </option>
                    ))}
                  </select>
                ) : (
                  t.roles[m.role]
                )}
              </td>
              <td>
                {isOwner && m.userId !== user.value && (
                  <button type="button" aria-label={`${t.remove} ${m.userId}`} onClick={() => remove(m.userId).catch(setError)}>
                    {t.remove}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {isOwner && (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            const data = new FormData(event.currentTarget);
            put((data.get('userId') as string).trim(), data.get('role') as Role).catch(setError);
          }}
        >
          <p class="note">{t.membersNoDirectory}</p>
          <label>
            {t.userId}
            <input name="userId" required />
          </label>
          <label>
            {t.role}
            <select name="role">
              {ROLES.map((r) => (
                <option key={r} value={r} selected={r === 'viewer'}>
                  {t.roles[r]}
                </option>
              ))}
            </select>
          </label>
          <button type="submit">{t.add}</button>
        </form>
      )}
      <button type="button" onClick={() => remove(user.value!).catch(setError)}>
        {t.leave}
      </button>
      <ErrorText error={error} />
    </Dialog>
  );
}
