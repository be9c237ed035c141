/**
 * Header fields of the stand-in renderer's messages that carry caller text (a dashboard's title, a
 * user's name, an e-mail address, a link), written as RFC 5322 and RFC 2047 ask: one logical line
 * per field, text that is not plain printable ASCII as encoded-words, folded with CRLF SP so that
 * no line passes 78 characters (998 at the very most, for the longest address). Nodemailer encodes
 * only non-ASCII text and folds only at spaces, so a long word would stay one line: these fields are
 * handed to it ready-made.
 */

const CRLF = '\r\n';
/** RFC 5322's recommended line length, without its CRLF. */
const LINE_LENGTH = 78;
/**
 * UTF-8 bytes in one encoded-word: 39 bytes are 52 base64 characters, 64 with `=?UTF-8?B?` and `?=`,
 * so a word fits on a line after the longest field name used here and its `: `.
 */
const WORD_BYTES = 39;

/** Caller text on one line: line breaks and other control characters become spaces. */
export const oneLine = (text: string) => text.replace(/[\p{Cc}\u2028\u2029]/gu, ' ');

/** Text that may stand in a header as it is: printable ASCII that no reader would take for an encoded-word. */
const isPlain = (text: string) => /^[\x20-\x7e]*$/.test(text) && !text.includes('=?');

/** `text` as B encoded-words of at most WORD_BYTES bytes each, never splitting a character, one per line. */
function encodedWords(text: string): string[] {
  const words: string[] = [];
  let chunk = '';
  for (const char of text) {
    if (Buffer.byteLength(chunk + char) > WORD_BYTES) {
      words.push(chunk);
      chunk = '';
    }
    chunk += char;
  }
  words.push(chunk);
  return words.map((word) => `=?UTF-8?B?${Buffer.from(word).toString('base64')}?=`);
}

/** A field of free text (`Subject`): as it is when it fits one line, else encoded and folded. */
export function unstructuredField(name: string, text: string): string {
  const value = oneLine(text);
  if (isPlain(value) && name.length + 2 + value.length <= LINE_LENGTH) return value;
  return encodedWords(value).join(`${CRLF} `);
}

/** An addr-spec as it may stand: the local part quoted when it is no dot-atom. */
function addrSpec(address: string): string {
  const quoted = (text: string) => `"${text.replace(/["\\]/g, '\\$&')}"`;
  const at = address.lastIndexOf('@');
  if (at < 1) return quoted(address);
  const local = address.slice(0, at);
  if (/^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/.test(local)) {
    return address;
  }
  return `${quoted(local)}${address.slice(at)}`;
}

/** An address field (`To`): the display name encoded, the address on a line of its own when long. */
export function addressField(name: string, address: string, displayName?: string): string {
  const spec = `<${addrSpec(oneLine(address).trim())}>`;
  const phrase = displayName === undefined ? '' : oneLine(displayName).trim();
  if (phrase === '') return spec;
  const plain = /^[A-Za-z0-9 ]+$/.test(phrase) && name.length + 2 + phrase.length <= LINE_LENGTH;
  const words = plain ? [phrase] : encodedWords(phrase);
  const last = words.at(-1) as string;
  const head = words.length === 1 ? name.length + 2 : 1;
  const fits = head + last.length + 1 + spec.length <= LINE_LENGTH;
  return `${words.join(`${CRLF} `)}${fits ? ' ' : `${CRLF} `}${spec}`;
}

/**
 * A field of URLs in angle brackets (`List-Unsubscribe`): a URL too long for a line is folded inside
 * its brackets, whitespace that RFC 2369 tells readers to ignore there.
 */
export function urlField(name: string, url: string): string {
  const value = `<${oneLine(url).replace(/ /g, '%20')}>`;
  const lines: string[] = [];
  let room = LINE_LENGTH - name.length - 2;
  for (let at = 0; at < value.length; at += room, room = LINE_LENGTH - 1) {
    lines.push(value.slice(at, at + room));
  }
  return lines.join(`${CRLF} `);
}
