/** The item-size model lives with the store, which sizes a document item by it (functions/core/db/item-size.ts). */
export { itemSize, readUnits, type StoredItem, transactionalWriteUnits, valueSize } from '#core/db/item-size';
