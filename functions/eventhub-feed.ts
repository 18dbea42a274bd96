import { app, type InvocationContext } from '@azure/functions';
import * as df from 'durable-functions';
import { admitDiagnosticBatch } from '../shared/app/eventhub/diagnostic-feed';
import { durableBranchGateway } from './branch-gateway';
import { appRuntime } from './runtime';

/**
 * An AKS cluster's audit log, streamed by its diagnostic setting to Event Hubs
 * (docs/connect-a-cluster.md). The binding's settings are app settings, so the infrastructure
 * names the hub: `KUBESCRIBE_EVENTHUB__fullyQualifiedNamespace` (identity-based connection),
 * `KUBESCRIBE_EVENTHUB_NAME` and `KUBESCRIBE_EVENTHUB_CONSUMER_GROUP`; the configuration's
 * `eventHub` source says where its events are recorded. The trigger checkpoints after every
 * invocation, failed or not; the retry policy makes a failed batch (Git paused intake, storage
 * unreachable) run again until it is durable, instead of being checkpointed past.
 */
app.eventHub('eventhub-feed', {
  connection: 'KUBESCRIBE_EVENTHUB',
  eventHubName: '%KUBESCRIBE_EVENTHUB_NAME%',
  consumerGroup: '%KUBESCRIBE_EVENTHUB_CONSUMER_GROUP%',
  cardinality: 'many',
  extraInputs: [df.input.durableClient()],
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
    const outcomes = await admitDiagnosticBatch({
      runtime,
      gateway: durableBranchGateway(df.getClient(context)),
      source,
      bodies: Array.isArray(bodies) ? bodies : [bodies],
      at: new Date(runtime.nowMs()).toISOString(),
    });
    for (const outcome of outcomes)
      context.debug(JSON.stringify({ event: 'EventHubBatchRecorded', ...outcome }));
  },
});
