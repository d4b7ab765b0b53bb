/** Cold-start reference: the data layer — the store and its DynamoDB client (node:https, node:crypto). */
import { getDocument } from '#core/items/document';

export const handler = async () => getDocument;
