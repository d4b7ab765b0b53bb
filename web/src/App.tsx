import { SearchBox } from './components/SearchBox';
import { UploadPanel } from './components/UploadPanel';
import { LiveRegion, Toast } from './components/ui';
import { t } from './messages';
import { href, onLinkClick, route } from './router';
import { DocumentScreen } from './screens/Document';
import { Folder } from './screens/Folder';
import { Repositories } from './screens/Repositories';
import { Search } from './screens/Search';
import { SharedLink } from './screens/Shared';
import { SignIn } from './screens/SignIn';
import { Trash } from './screens/Trash';
import { signOut, user } from './session';

function Screen() {
  const current = route.value;
  switch (current.name) {
    case 'repositories':
      return <Repositories />;
    case 'folder':
      return (
        <Folder
          key={`${current.repositoryId}/${current.folderId}`}
          repositoryId={current.repositoryId}
          {...(current.folderId ? { folderId: current.folderId } : {})}
        />
      );
    case 'document':
      return <DocumentScreen key={current.documentId} repositoryId={current.repositoryId} documentId={current.documentId} />;
    case 'trash':
      return <Trash repositoryId={current.repositoryId} />;
    case 'search':
      return <Search q={current.q} kind={current.kind} repositoryId={current.repositoryId} />;
    default:
      return (
        <main id="main">
          <h1>404</h1>
          <a href={href.repositories()}>{t.repositories}</a>
        </main>
      );
  }
}

export function App() {
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions lint/a11y/useKeyWithClickEvents: delegation of in-app link clicks (links are keyboard-operable themselves)
    <div onClick={onLinkClick}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header>
        <a href={href.repositories()} class="brand">
          {t.appName}
        </a>
        {user.value && <SearchBox />}
        {user.value && (
          <span class="who">
            {t.signedInAs(user.value)}{' '}
            <button type="button" onClick={signOut}>
              {t.signOut}
            </button>
          </span>
        )}
      </header>
      {route.value.name === 'shared' ? (
        <SharedLink key={route.value.token} token={route.value.token} />
      ) : user.value ? (
        <Screen />
      ) : (
        <SignIn />
      )}
      <UploadPanel />
      <Toast />
      <LiveRegion />
    </div>
  );
}
