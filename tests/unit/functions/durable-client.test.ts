// The durable client a function gets from its binding: reused while the host's client data stays
// the same. durable-functions 3.x (lib/src/durableClient/getClient.js) finds the binding's data by
// its input, copies it and builds a DurableClient, which makes an axios instance, on every call; it
// takes data holding taskHubName, creationUrls and managementUrls
// (OrchestrationClientInputData.isOrchestrationClientInputData) and refuses anything else. The data
// here has the shape the Durable Functions extension gives (as the embedded host does,
// embedded/host.ts), with fewer URLs.
import { InvocationContext } from '@azure/functions';
import { durableClient, durableClientInput } from '../../../functions/durable-client';

/** The binding's data, one URL of each kind (durable-functions requires the hub's name and both maps). */
function clientData(rpcBaseUrl: string, taskHubName = 'hub') {
  const query = `taskHub=${taskHubName}&connection=Storage`;
  return {
    taskHubName,
    creationUrls: { createNewInstancePostUri: `${rpcBaseUrl}orchestrators/{functionName}?${query}` },
    managementUrls: { id: 'INSTANCEID', statusQueryGetUri: `${rpcBaseUrl}instances/INSTANCEID?${query}` },
    baseUrl: rpcBaseUrl.replace(/\/$/, ''),
    requiredQueryStringParameters: query,
    rpcBaseUrl,
  };
}

function invocation(data: unknown): InvocationContext {
  const context = new InvocationContext({ options: { extraInputs: [durableClientInput] } });
  if (data !== undefined) context.extraInputs.set(durableClientInput, data);
  return context;
}

describe('the durable client of an invocation', () => {
  it('given invocations with the same client data then they share one client, and new data (a restarted host) gets its own', () => {
    const first = durableClient(
      invocation(clientData('http://127.0.0.1:7071/runtime/webhooks/durabletask/')),
    );
    const again = durableClient(
      invocation(clientData('http://127.0.0.1:7071/runtime/webhooks/durabletask/')),
    );
    expect(again).toBe(first);

    const moved = durableClient(
      invocation(clientData('http://127.0.0.1:7072/runtime/webhooks/durabletask/', 'other')),
    );
    expect(moved).not.toBe(first);
    expect(moved.taskHubName).toBe('other');
    expect(
      durableClient(invocation(clientData('http://127.0.0.1:7072/runtime/webhooks/durabletask/', 'other'))),
    ).toBe(moved);
  });

  it('given an invocation without the binding data then durable-functions refuses it, as getClient does', () => {
    expect(() => durableClient(invocation(undefined))).toThrow(/durable client input/);
  });
});
