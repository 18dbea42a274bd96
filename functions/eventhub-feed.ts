import { app, type InvocationContext } from '@azure/functions';
import { admitDiagnosticBatch } from '../shared/app/eventhub/diagnostic-feed';
import { durableBranchGateway } from './branch-gateway';
import { durableClient, durableClientInput } from './durable-client';
import { appRuntime } from './runtime';

// Registered only where a hub is configured: the Functions host cannot index a trigger whose hub
// name does not resolve, and a deployment without a cluster to read sets none.
if (process.env.KUBESCRIBE_EVENTHUB_NAME) registerEventHubFeed();

/**
 * An AKS cluster's audit log, streamed by its diagnostic setting to Event Hubs
 * (docs/connect-a-cluster.md). The binding's settings are app settings, so the infrastructure
 * names the hub: `KUBESCRIBE_EVENTHUB__fullyQualifiedNamespace` (identity-based connection),
 * `KUBESCRIBE_EVENTHUB_NAME` and `KUBESCRIBE_EVENTHUB_CONSUMER_GROUP`; the configuration's
 * `eventHub` source says where its events are recorded. The trigger checkpoints after every
 * invocation, failed or not; the retry policy makes a failed batch (Git paused intake, storage
 * unreachable) run again until it is durable, instead of being checkpointed past.
 */
function registerEventHubFeed(): void {
  app.eventHub('eventhub-feed', {
    connection: 'KUBESCRIBE_EVENTHUB',
    eventHubName: '%KUBESCRIBE_EVENTHUB_NAME%',
    consumerGroup: process.env.KUBESCRIBE_EVENTHUB_CONSUMER_GROUP
      ? '%KUBESCRIBE_EVENTHUB_CONSUMER_GROUP%'
      : '$Default',
    cardinality: 'many',
    extraInputs: [durableClientInput],
    retry: {
      strategy: 'exponentialBackoff',
      maxRetryCount: -1,
      minimumInterval: { seconds: 5 },
      maximumInterval: { minutes: 5 },
    },
    handler: async (bodies: unknown, context: InvocationContext) => {
      const runtime = await appRuntime();
      const source = runtime.loaded.config.sources.find((candidate) => candidate.kind === 'eventHub');
      if (!source) {
        // Delivered again once the configuration names the source: nothing is skipped meanwhile.
        throw new Error('events arrived from Event Hubs, but the configuration has no eventHub source');
      }
      const hub = partitionHub(context.triggerMetadata);
      if (hub !== undefined && hub !== source.eventHub.hub) {
        throw new Error(
          `events arrived from Event Hub "${hub}", but the eventHub source "${source.name}" names "${source.eventHub.hub}"`,
        );
      }
      const outcomes = await admitDiagnosticBatch({
        runtime,
        gateway: durableBranchGateway(durableClient(context)),
        source,
        bodies: Array.isArray(bodies) ? bodies : [bodies],
        at: new Date(runtime.nowMs()).toISOString(),
      });
      for (const outcome of outcomes)
        context.debug(JSON.stringify({ event: 'EventHubBatchRecorded', ...outcome }));
    },
  });
}

/** The hub a batch came from, as the trigger's partition context names it. */
function partitionHub(metadata: InvocationContext['triggerMetadata']): string | undefined {
  const context = metadata?.partitionContext;
  const hub =
    typeof context === 'object' && context !== null
      ? (context as { eventHubName?: unknown }).eventHubName
      : undefined;
  return typeof hub === 'string' ? hub : undefined;
}
