import { readFile, writeFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
let t = performance.now();
if (process.argv[2] === 'make') {
  const db = await PGlite.create({ extensions: { unaccent, pg_trgm } });
  await writeFile('/tmp/snap.tar', Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer()));
} else {
  const db = await PGlite.create({ extensions: { unaccent, pg_trgm }, loadDataDir: new Blob([await readFile('/tmp/snap.tar')]) });
  await db.query('select 1');
}
console.log(process.argv[2], (performance.now() - t).toFixed(0));
