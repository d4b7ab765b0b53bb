/** Runs before each test file (vitest setupFiles): its tables go when the file is done. */
import { afterAll } from 'vitest';
import { dropCreatedTables } from './dynamodb';

// Registered first, so it runs after the file's own afterAll hooks (they stop services first).
afterAll(dropCreatedTables, 60_000);
