import { useState } from 'preact/hooks';
import { ErrorText } from '../components/ui';
import { t } from '../messages';
import { signIn, signInMode } from '../session';

export function SignIn() {
  const [error, setError] = useState<unknown>();
  if (signInMode() === 'cognito') {
    // Deployed: the managed login (functions/auth/login.ts) asks who you are.
    return (
      <main id="main">
        <h1>{t.signIn}</h1>
        <button type="button" onClick={() => void signIn('')}>
          {t.signIn}
        </button>
      </main>
    );
  }
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
