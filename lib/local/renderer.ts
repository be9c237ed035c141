import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer';
import { addressField, oneLine, unstructuredField, urlField } from '#lib/local/mail-headers';

/**
 * The renderer's stand-in under `npm start`: it takes each job in the outbox, writes the message the
 * platform would send as `<mailDir>/<jobId>.eml` (a real MIME message, with the one-click unsubscribe
 * headers of RFC 8058), and reports `delivered` through the outcome route with a platform token,
 * exactly as the deployed renderer does. A job it has handled (at that attempt) is not handled again.
 *
 * It plays a bounce too: an address whose local part starts with `bounce` (`bounce@…`,
 * `bounce.test+1@…`) gets no message; its job is reported `failed` with `"bounce": "hard"`, as a
 * renderer reports a mailbox that does not exist, and the service suppresses the address.
 */

interface OutboxJob {
  jobId: string;
  attempt: number;
  scheduledFor: string;
  dashboard: { publicId: string; title: string };
  notificationFormat: string;
  recipient: { email: string; username?: string; externalId?: string };
  unsubscribeUrl: string;
}

export interface RendererOptions {
  outboxDir: string;
  mailDir: string;
  /** The API's base URL, where the outcome route is. */
  baseUrl: string;
  /** A fresh platform JWT of the `screenshot` session. */
  token: () => string;
  from?: string;
  intervalMs?: number;
  /** A job is taken only once it has waited this long in the outbox: time to report an outcome by hand first. */
  delayMs?: number;
}

/**
 * The message for one job: to the recipient, naming the dashboard, with List-Unsubscribe and its
 * One-Click POST. An RFC 5322 message: CRLF line ends throughout, and caller text (the title, the
 * user's name, the address, the link) kept on one line of its field or its part, encoded and folded
 * where long (lib/local/mail-headers.ts): it can never start a header or a line of its own.
 */
async function composeMessage(job: OutboxJob, from: string): Promise<Buffer> {
  const title = oneLine(job.dashboard.title);
  const link = job.unsubscribeUrl;
  const { recipient } = job;
  const message = await new MailComposer({
    from,
    messageId: `<${job.jobId}.${job.attempt}@renderer.localhost>`,
    date: new Date(job.scheduledFor),
    text: [
      'Hello,',
      '',
      `here is the dashboard "${title}" (${oneLine(job.dashboard.publicId)}), as scheduled for ${job.scheduledFor}.`,
      `The ${job.notificationFormat.toUpperCase()} would be attached here by the platform's renderer.`,
      '',
      `Unsubscribe: ${oneLine(link)}`,
      '',
    ].join('\r\n'),
    html: `<p>Hello,</p><p>here is the dashboard <strong>${escapeHtml(title)}</strong>, as scheduled for ${escapeHtml(job.scheduledFor)}.</p><p><a href="${escapeHtml(oneLine(link))}">Unsubscribe</a></p>`,
    // Every line of the message ends in CRLF, the parts' text included.
    newline: '\r\n',
    // Written ready-made: Nodemailer would leave a long ASCII word unfolded. (MailComposer leaves the
    // `list` option to the transport's mailer: the two List headers are set here as they are.)
    headers: {
      Subject: {
        prepared: true,
        value: unstructuredField('Subject', `${title}: your scheduled dashboard`),
      },
      'List-Unsubscribe': { prepared: true, value: urlField('List-Unsubscribe', link) },
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  })
    .compile()
    .build();
  // Nodemailer formats `To` itself, whatever it is given, folding only at spaces: the field is
  // written here and leads the others (their order is free).
  const to = `To: ${addressField('To', recipient.email, recipient.username)}\r\n`;
  return Buffer.concat([Buffer.from(to, 'utf8'), message]);
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** Whether the stand-in plays a hard bounce for this address: its local part starts with `bounce`. */
const bouncesAt = (email: string) => /^bounce/i.test(email);

const BOUNCE_ERROR = '550 5.1.1 The mailbox does not exist (the stand-in renderer plays a hard bounce)';

/** What one sweep reported: the jobs written and reported delivered, and those reported as hard bounces. */
export interface SweepReport {
  delivered: string[];
  bounced: string[];
}

/** One sweep of the outbox. */
export async function renderOutbox(options: RendererOptions, handled: Set<string>): Promise<SweepReport> {
  let files: string[];
  try {
    files = (await readdir(options.outboxDir)).filter((file) => file.endsWith('.json'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { delivered: [], bounced: [] };
    throw error;
  }
  const reported: SweepReport = { delivered: [], bounced: [] };
  await mkdir(options.mailDir, { recursive: true });
  for (const file of files) {
    const path = join(options.outboxDir, file);
    if (options.delayMs && Date.now() - (await stat(path)).mtimeMs < options.delayMs) continue;
    const job = JSON.parse(await readFile(path, 'utf8')) as OutboxJob;
    const seen = `${job.jobId}#${job.attempt}`;
    if (handled.has(seen)) continue;
    const bounced = bouncesAt(job.recipient.email);
    if (!bounced) {
      const message = await composeMessage(job, options.from ?? 'Dashboards <reports@localhost>');
      const target = join(options.mailDir, `${job.jobId}.eml`);
      await writeFile(`${target}.partial`, message);
      await rename(`${target}.partial`, target);
    }
    const outcome = bounced
      ? { status: 'failed', error: BOUNCE_ERROR, bounce: 'hard', attempt: job.attempt }
      : { status: 'delivered', attempt: job.attempt };
    const response = await fetch(
      `${options.baseUrl}/v1/deliveries/${encodeURIComponent(job.jobId)}/outcome`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${options.token()}`, 'content-type': 'application/json' },
        body: JSON.stringify(outcome),
      },
    );
    // 404: the notification is gone meanwhile; 409: the retry that queued it is still writing (next sweep).
    if (response.status === 409) continue;
    handled.add(seen);
    if (response.status === 204) reported[bounced ? 'bounced' : 'delivered'].push(job.jobId);
  }
  return reported;
}

/** Sweeps the outbox every `intervalMs` (default 1 s) until stopped; sweeps never overlap. */
export function startRenderer(options: RendererOptions, print: (line: string) => void): { stop: () => void } {
  const handled = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const sweep = async () => {
    try {
      const { delivered, bounced } = await renderOutbox(options, handled);
      if (delivered.length > 0)
        print(`renderer: ${delivered.length} message(s) written to ${options.mailDir}, reported delivered`);
      if (bounced.length > 0)
        print(`renderer: ${bounced.length} job(s) reported as hard bounces (addresses starting "bounce")`);
    } catch (error) {
      print(`renderer failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!stopped) timer = setTimeout(sweep, options.intervalMs ?? 1_000);
  };
  void sweep();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
