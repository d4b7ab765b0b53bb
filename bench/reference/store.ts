/** Cold-start reference: the data layer — the store and its DynamoDB client (node:https, node:crypto). */
import { getDocument } from '#core/store/documents';

export const handler = async () => getDocument;
