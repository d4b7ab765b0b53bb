import { useState } from 'preact/hooks';
import { ErrorText } from '../components/ui';
import { t } from '../messages';
import { signIn } from '../session';

export function SignIn() {
  const [error, setError] = useState<unknown>();
  return (
    <main id="main">
      <h1>{t.signInTitle}</h1>
      <p>{t.signInHint}</p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const name = (new FormData(event.currentTarget).get('user') as string).trim();
          signIn(name).catch(setError);
        }}
      >
        <label>
          {t.userName}
          <input name="user" required pattern="[\w.@\-]{1,64}" autoComplete="username" />
        </label>
        <button type="submit">{t.signIn}</button>
      </form>
      <ErrorText error={error} />
    </main>
  );
}
