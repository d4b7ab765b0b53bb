/**
 * Applies the search index's migrations (./schema.ts) that the database has not recorded yet,
 * in order: at deploy (the stack's migration function, functions/search/migrate.ts), at every
 * local start, and before a reindex. Safe to run twice or at once: every statement is idempotent
 * and a version is recorded only after its statements ran.
 */
import { execute as executeOnIndex, type Row, type SqlValue } from './database';
import { migrations, VERSION_TABLE } from './schema';

/** Returns the versions it applied (on the process's search database, or through `execute`). */
export async function migrate(execute: (sql: string, params?: readonly SqlValue[]) => Promise<Row[]> = executeOnIndex): Promise<number[]> {
  await execute(VERSION_TABLE);
  const rows = await execute('SELECT version FROM search_schema_version');
  const applied = new Set(rows.map((row) => Number(row.version)));
  const done: number[] = [];
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    for (const statement of migration.statements) await execute(statement);
    await execute('INSERT INTO search_schema_version (version) VALUES ($1) ON CONFLICT DO NOTHING', [migration.version]);
    done.push(migration.version);
  }
  return done;
}
