/**
 * Stands in for `@smithy/core/event-streams` in the bundles (an esbuild alias in
 * lib/bundling.ts). The SDK's HTTP protocol reaches event streams through a dynamic
 * `import()`, only for an operation with an event-stream member; DynamoDB has none. Bundled,
 * that one dynamic import made esbuild wrap ~150 of the SDK's modules in lazy initializers
 * (all run at load anyway) and carry the event-stream codec with its CRC32 (`node:zlib`):
 * ~20 KB and a tenth of a handler's module load. Code run unbundled keeps the real module.
 */
const unsupported = (): never => {
  throw new Error('Event streams are not bundled with this function (lib/bundling.ts); DynamoDB has none.');
};

export class EventStreamSerde {
  constructor() {
    unsupported();
  }
}

export const eventStreamSerdeProvider = unsupported;
