/** Cold-start reference: every request schema (zod/mini). */
import * as schemas from '#core/schemas';

export const handler = async () => schemas;
