// An app with two Event Hubs triggers (cardinality many) that record what they were given: one with a
// retry policy (exponential, for ever), one without. `failNext` makes the next invocations throw.
import { app, type InvocationContext } from '@azure/functions';

export interface Invocation {
  function: string;
  bodies: unknown[];
  triggerMetadata: Record<string, unknown> | undefined;
  retryCount: number | undefined;
}

export const invocations: Invocation[] = [];
export const failNext: Record<string, number> = { retried: 0, unretried: 0 };

function handler(name: string) {
  return async (bodies: unknown[], context: InvocationContext): Promise<void> => {
    invocations.push({
      function: name,
      bodies,
      triggerMetadata: context.triggerMetadata,
      retryCount: context.retryContext?.retryCount,
    });
    if ((failNext[name] ?? 0) > 0) {
      failNext[name]! -= 1;
      throw new Error(`${name} failed on purpose`);
    }
  };
}

app.eventHub('retried', {
  connection: 'TEST_EVENTHUB',
  eventHubName: '%TEST_RETRIED_HUB%',
  consumerGroup: 'readers',
  cardinality: 'many',
  retry: { strategy: 'exponentialBackoff', maxRetryCount: -1, minimumInterval: 1000, maximumInterval: 4000 },
  handler: handler('retried'),
});

app.eventHub('unretried', {
  connection: 'TEST_EVENTHUB',
  eventHubName: 'plain-hub',
  cardinality: 'many',
  handler: handler('unretried'),
});
