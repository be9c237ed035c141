import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { DueSlice } from '#lib/domain/dispatch/dispatch-fanout';

/**
 * How dispatcher workers are started, by the coordinator each minute and by a worker handing on
 * what it would not fire in time: an asynchronous invocation of the worker function with the slices
 * of the due index it reads and the end of their minute's window.
 */

export interface WorkerEvent {
  slices: DueSlice[];
  /** When the slices' entries should all have fired (epoch ms). */
  fireBy: number;
}

/**
 * The client workers are started with. Lambda has no local engine: the tests record its Invoke
 * requests at its middleware stack and run the worker with exactly those payloads.
 */
export const lambda = new LambdaClient({});

export async function startWorker(functionName: string, event: WorkerEvent): Promise<void> {
  await lambda.send(
    new InvokeCommand({
      FunctionName: functionName,
      // Queued by Lambda; a worker that fails is not retried (cdk/scheduler.ts): the next minute's
      // count finds what it left, and a pass is safe to repeat.
      InvocationType: 'Event',
      Payload: JSON.stringify(event),
    }),
  );
}
