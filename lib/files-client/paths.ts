/** The types the file tools use, from the typed client (lib/client, generated from openapi.json). */
import type { components } from '#lib/client/index';

export type { Document, Problem } from '#lib/client/index';
export type Upload = components['schemas']['Upload'];
export type PartUrl = NonNullable<Upload['parts']>[number];
