/** Cold-start reference: every request schema (zod/mini). */
import * as schemas from '#core/requests';

export const handler = async () => schemas;
