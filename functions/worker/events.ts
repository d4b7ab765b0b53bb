/**
 * Every numbered change, published as an event: on AWS to the stack's EventBridge bus
 * (EVENT_BUS_NAME), with `detail-type` the change's `type` and `detail` the change with its
 * repository and sequence number (docs/api.md: Events). The mapping is here, once; where the
 * events go is a sink, which the local runtime replaces (it prints them, or a test listens).
 * At least once: a retried batch may publish a change again; `repositoryId` + `seq` identify it.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { Change } from '#core/resources';
import { traceClient } from '#core/tracing';

export const EVENT_SOURCE = 'documents.service';

/** A numbered change, as the feed stores it. */
export type NumberedChange = Change & { repositoryId: string; seq: number };

export interface ChangeEvent {
  Source: typeof EVENT_SOURCE;
  DetailType: Change['type'];
  /** JSON of the change, its `repositoryId` and `seq`. */
  Detail: string;
  Time: Date;
}

export function toEvent(numbered: NumberedChange & Record<string, unknown>): ChangeEvent {
  // The feed item as stored: the change, its repository and number, and storage attributes (keys, TTL).
  const { repositoryId, seq, PK: _pk, SK: _sk, expiresAt: _expires, ...fields } = numbered;
  const change = fields as Change;
  return {
    Source: EVENT_SOURCE,
    DetailType: change.type,
    Detail: JSON.stringify({ repositoryId, seq, ...fields }),
    Time: new Date(change.at),
  };
}

export type EventSink = (events: readonly ChangeEvent[]) => Promise<void>;

let sink: EventSink | undefined;

/** Where events go instead of EventBridge (the local runtime). */
export function setEventSink(replacement: EventSink | undefined): void {
  sink = replacement;
}

export async function publishChanges(changes: readonly NumberedChange[]): Promise<void> {
  const events = changes.map(toEvent);
  await (sink ?? eventBridgeSink())(events);
}

let client: EventBridgeClient | undefined;

/** PutEvents takes 10 entries a call; an entry it could not take fails the batch, to be retried. */
function eventBridgeSink(): EventSink {
  const busName = process.env.EVENT_BUS_NAME;
  if (!busName) throw new Error('EVENT_BUS_NAME is not set');
  client ??= traceClient(new EventBridgeClient({}));
  return async (events) => {
    for (let i = 0; i < events.length; i += 10) {
      const entries = events.slice(i, i + 10).map((event) => ({ ...event, EventBusName: busName }));
      const result = await client!.send(new PutEventsCommand({ Entries: entries }));
      if (result.FailedEntryCount) throw new Error(`EventBridge refused ${result.FailedEntryCount} of ${entries.length} events`);
    }
  };
}
