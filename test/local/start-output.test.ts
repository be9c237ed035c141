import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * `npm start` says that metrics are off; so it must write none, and no warning about them, however
 * many requests it serves at once. Started as the script runs, over this file's table and engine.
 */

/** Whether a TCP connection to `host`:`port` is accepted. */
const accepts = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

const script = fileURLToPath(new URL('../../scripts/start.ts', import.meta.url));
let child: ChildProcess | undefined;
afterAll(() => {
  child?.kill('SIGTERM');
});

describe('npm start output', () => {
  it('prints its lines, then one short line per request: no metric lines, no metric warnings, no idle dispatch lines', async () => {
    const { POWERTOOLS_METRICS_DISABLED: _, HOST: _host, ...env } = process.env;
    child = spawn(process.execPath, [script], {
      env: { ...env, PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    await expect.poll(() => output, { timeout: 30_000 }).toMatch(/Press Ctrl-C to stop\./);
    const baseUrl = /API listening on (\S+)/.exec(output)?.[1] as string;
    expect(baseUrl).toMatch(/^http:\/\/localhost:\d+$/);
    expect(baseUrl).not.toMatch(/:0$/);
    // Without HOST, on the loopback address alone: the machine's IPv6 loopback is refused too.
    const port = Number(new URL(baseUrl).port);
    expect(await accepts('127.0.0.1', port)).toBe(true);
    expect(await accepts('::1', port)).toBe(false);

    const admin = { Authorization: 'Bearer sk-demo-admin' };
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        fetch(`${baseUrl}/v1/deployments/7/notifications/${i % 2 === 0 ? 700 : 701}`, { headers: admin }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    const sent = await fetch(`${baseUrl}/v1/deployments/7/notifications/700/send`, {
      method: 'POST',
      headers: admin,
    });
    expect(sent.status).toBe(202);
    const served =
      /^\d\d:\d\d:\d\d (GET|POST) \/v1\/deployments\/\{deploymentId\}\/notifications\/\{id\}(\/send)? (200|202) \d+ ms$/gm;
    await expect.poll(() => output.match(served)?.length ?? 0).toBe(21);
    expect(output).not.toContain('"level"');
    // A pass that found nothing to do: every count of its line 0.
    expect(output).not.toMatch(/^dispatch \S+: (0 [a-z ]+, )*0 [a-z ]+$/m);

    expect(output).not.toContain('"_aws"');
    expect(output).not.toContain('has already been added');
    expect(output).not.toContain('No application metrics');
  });
});
