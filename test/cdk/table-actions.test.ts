import { build, type OutputFile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { type RouteFacts, routes } from '#lib/routes';
import { bundlingSettings } from '../../cdk/bundling.ts';
import { PURGE_TABLE_ACTIONS } from '../../cdk/purge.ts';
import { COORDINATOR_TABLE_ACTIONS, DISPATCHER_TABLE_ACTIONS } from '../../cdk/scheduler.ts';
import { WEBHOOK_RELAY_TABLE_ACTIONS, WEBHOOK_SENDER_TABLE_ACTIONS } from '../../cdk/webhooks.ts';

/**
 * The routes' IAM lists (lib/routes.ts) were read off the code by hand; this holds them to the
 * code. Each function is bundled as Lambda gets it (tree-shaken) but unminified, so esbuild keeps
 * its `// lib/...` module markers and the SDK command names; the DynamoDB commands our own modules
 * construct are then mapped to the IAM actions that authorize them.
 */

const ACTIONS_OF_COMMAND: Record<string, string[]> = {
  Get: ['dynamodb:GetItem'],
  GetItem: ['dynamodb:GetItem'],
  Put: ['dynamodb:PutItem'],
  PutItem: ['dynamodb:PutItem'],
  Update: ['dynamodb:UpdateItem'],
  UpdateItem: ['dynamodb:UpdateItem'],
  Delete: ['dynamodb:DeleteItem'],
  DeleteItem: ['dynamodb:DeleteItem'],
  Query: ['dynamodb:Query'],
  Scan: ['dynamodb:Scan'],
  BatchGet: ['dynamodb:BatchGetItem'],
  BatchGetItem: ['dynamodb:BatchGetItem'],
  BatchWrite: ['dynamodb:BatchWriteItem'],
  BatchWriteItem: ['dynamodb:BatchWriteItem'],
  // Transactions have no IAM action of their own: each member is authorized as its single-item action.
  TransactWrite: [],
  TransactWriteItems: [],
  TransactGet: ['dynamodb:GetItem'],
  TransactGetItems: ['dynamodb:GetItem'],
  // Delivery jobs go to SQS: granted on the queue, not on the table.
  SendMessageBatch: [],
  // The unsubscribe signing key: granted on its secret, not on the table.
  GetSecretValue: [],
  // A dispatcher worker starting its continuations: granted on the function, not on the table.
  Invoke: [],
};

const ACTIONS_OF_TRANSACTION_MEMBER: Record<string, string> = {
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  ConditionCheck: 'dynamodb:ConditionCheckItem',
};

/** The code of our own modules in a bundle, without the dependencies'. */
function ownCode(bundle: string): string {
  const parts = bundle.split(/^\/\/ (\S+)$/m);
  let code = '';
  for (let i = 1; i < parts.length; i += 2) {
    if (/^(lib|functions)\//.test(parts[i] as string)) code += parts[i + 1];
  }
  return code;
}

function actionsCalledBy(code: string): string[] {
  const actions = new Set<string>();
  // esbuild suffixes a digit to a name it had to rename.
  for (const [, command] of code.matchAll(/new (\w+?)Command\d*\(/g)) {
    const mapped = ACTIONS_OF_COMMAND[command as string];
    if (!mapped) throw new Error(`No IAM mapping for ${command}Command: add it to this test`);
    for (const action of mapped) actions.add(action);
    if (command?.startsWith('TransactWrite')) {
      // A member is written out (`Update: {`) or made by a helper (`Update: itemUpdate(`).
      for (const [, member] of code.matchAll(/\b(Put|Update|Delete|ConditionCheck): (?:\{|\w+\()/g)) {
        actions.add(ACTIONS_OF_TRANSACTION_MEMBER[member as string] as string);
      }
    }
  }
  return [...actions].sort();
}

describe('table actions granted to each function', () => {
  const bundles = new Map<string, string>();
  beforeAll(async () => {
    const result = await build({
      entryPoints: {
        ...Object.fromEntries(routes.map((route) => [route.operation, `functions/${route.operation}.ts`])),
        dispatch: 'functions/dispatch.ts',
        'dispatch-coordinator': 'functions/dispatch-coordinator.ts',
        purge: 'functions/purge.ts',
        'webhook-relay': 'functions/webhook-relay.ts',
        'webhook-sender': 'functions/webhook-sender.ts',
      },
      bundle: true,
      write: false,
      outdir: 'bundles',
      format: bundlingSettings.format,
      platform: bundlingSettings.platform,
      target: bundlingSettings.target,
      mainFields: [...bundlingSettings.mainFields],
      minify: false,
      logLevel: 'silent',
    });
    for (const file of result.outputFiles as OutputFile[]) {
      bundles.set(file.path.replace(/^.*\/bundles\/(.*)\.js$/, '$1'), ownCode(file.text));
    }
  });

  it.each(routes.map((route) => [route.operation, route] as const))(
    '%s is granted exactly the table actions its code calls',
    (operation, route: RouteFacts) => {
      const granted = [...new Set(route.tableActions)];
      const notCalled = route.bundledButNotCalled ?? [];
      expect(granted.filter((action) => notCalled.includes(action))).toEqual([]);
      expect(actionsCalledBy(bundles.get(operation) as string)).toEqual([...granted, ...notCalled].sort());
    },
  );

  it('the dispatcher is granted exactly the table actions its code calls', () => {
    expect(actionsCalledBy(bundles.get('dispatch') as string)).toEqual(
      [...new Set(DISPATCHER_TABLE_ACTIONS)].sort(),
    );
  });

  it('the coordinator is granted exactly the table actions its code calls', () => {
    expect(actionsCalledBy(bundles.get('dispatch-coordinator') as string)).toEqual(
      [...new Set(COORDINATOR_TABLE_ACTIONS)].sort(),
    );
  });

  it('the purge is granted exactly the table actions its code calls', () => {
    expect(actionsCalledBy(bundles.get('purge') as string)).toEqual([...new Set(PURGE_TABLE_ACTIONS)].sort());
  });

  it.each([
    ['webhook-relay', WEBHOOK_RELAY_TABLE_ACTIONS],
    ['webhook-sender', WEBHOOK_SENDER_TABLE_ACTIONS],
  ] as const)('the %s is granted exactly the table actions its code calls', (name, actions) => {
    expect(actionsCalledBy(bundles.get(name) as string)).toEqual([...new Set(actions)].sort());
  });
});
