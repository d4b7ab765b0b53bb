import { render } from 'preact';
import { App } from './App';
import { loadSession } from './session';

await loadSession().catch(() => {});
render(<App />, document.getElementById('root')!);
