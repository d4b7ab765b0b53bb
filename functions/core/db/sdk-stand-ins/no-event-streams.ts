/**
 * Stands in for `@smithy/core/event-streams` in the bundles (an esbuild alias in
 * lib/bundling.ts). The SDK's HTTP protocol reaches event streams through a dynamic
 * `import()`, only for an operation with an event-stream member; DynamoDB has none, and the
 * service calls none of S3's (SelectObjectContent). Bundled, that one dynamic import made
 * esbuild wrap ~150 of the SDK's modules in lazy initializers (all run at load anyway) and carry
 * the event-stream codec with its CRC32 (`node:zlib`): ~20 KB and a tenth of a handler's module
 * load. Code run unbundled keeps the real module. The S3 client resolves its event-stream
 * settings when it is made: that works here, and only using an event stream fails.
 */
const unsupported = (): never => {
  throw new Error('Event streams are not bundled with this function (lib/bundling.ts); the service uses none.');
};

export class EventStreamSerde {
  constructor() {
    unsupported();
  }
}

/** A marshaller that fails when used (S3Client makes one at construction). */
export const eventStreamSerdeProvider = () => ({ serialize: unsupported, deserialize: unsupported });

export const resolveEventStreamSerdeConfig = <T extends { eventStreamSerdeProvider: (input: T) => unknown }>(input: T) =>
  Object.assign(input, { eventStreamMarshaller: input.eventStreamSerdeProvider(input) });
