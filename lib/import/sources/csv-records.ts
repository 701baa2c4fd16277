/**
 * (ext) A registry's CSV file as raw records: each row's text as the file holds it, not parsed into
 * values, with the physical line it starts on. A re-import compares a unit's rows as published to its
 * block's digest (lib/import/registry-digest.ts) and has them parsed only when they changed (contract
 * §11.3: a file imported again goes at least as fast as its rows are read); finding where a record
 * ends is a search for its line break and one for each quote, where the parser (csv.ts) makes every
 * value.
 *
 * Only for a file whose quoting `PlainQuoting` (key-order.ts) found plain RFC 4180: a quote opens a
 * field only at its start and closes it right before a comma, the line ending or the end of the file.
 * There a record's bounds are the parser's, and `fieldAt` and `parseRecord` give the values `readCsv`
 * gives (test/unit/registries-csv.test.ts holds them side by side); and there every quote outside a
 * quoted field opens one, so a record ends at the first line break outside quotes, found by jumping
 * from quote to quote, its commas never looked at. As in `readCsv`: the bytes are
 * decoded as UTF-8, a byte-order mark is stripped, the line ending (CRLF or LF) is read off the first
 * line, a blank line is no record but is a physical line, and the first record is the header.
 */
import type { Readable } from 'node:stream';
import Papa from 'papaparse';
import { afterHeader, checkHeader, firstLine, MAX_ROW_CHARS, nextText, parsedAs, textOf } from './csv';
import { RegistryFileError } from './files';

export interface CsvRecord {
  /** The physical line the record starts on (the header is line 1). */
  line: number;
  /** The record's text as published, without its line ending. */
  text: string;
}

export interface CsvRecords {
  file: string;
  header: string[];
  /** The header as published: what each record's fields are. */
  headerText: string;
  newline: Newline;
  rows: AsyncIterable<CsvRecord[]>;
  /**
   * Whether the quoting of the text read so far is plain, as `PlainQuoting` finds it from the bytes
   * (test/unit/registries-csv.test.ts holds the two verdicts side by side): only then are the records
   * read the parser's rows. A record's quotes are all looked at before it is handed on.
   */
  plain(): boolean;
}

type Newline = '\n' | '\r\n';

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

/** The stream's header and its records, a chunk of text's worth at a time; the header must hold `required`. */
export async function readCsvRecords(
  stream: Readable,
  file: string,
  required: readonly string[] = [],
): Promise<CsvRecords> {
  const chunks = textOf(stream);
  const next = () => nextText(chunks, file);
  const { head, newline } = await firstLine(chunks, file);
  const records = new Records(newline);
  const batches = (async function* () {
    try {
      for (let text: string | undefined = head; text !== undefined; text = await next()) {
        const batch = records.walk(text);
        if (records.pending > MAX_ROW_CHARS)
          throw new RegistryFileError(
            `${file} line ${records.line}: not a readable CSV (${MAX_ROW_CHARS} characters hold no record end)`,
          );
        if (batch.length > 0) yield batch;
      }
      const last = records.rest();
      if (last) yield [last];
    } finally {
      stream.destroy();
    }
  })();
  const first = await batches.next();
  const headerRecord = first.done ? undefined : first.value[0];
  const header = headerRecord && parseRecord(headerRecord.text, newline);
  await checkHeader(file, header, required, () => batches.return(undefined));
  return {
    file,
    header: header!,
    headerText: headerRecord!.text,
    newline,
    rows: afterHeader(first, batches),
    plain: () => records.plain,
  };
}

/**
 * Records cut from text as it comes: what follows the last complete record waits for the next text,
 * and where the search got to in it is kept, so no text is searched twice.
 */
class Records {
  /** The text of the record not complete yet. */
  private carry = '';
  /** Where to go on in `carry`, and whether that is inside a quoted field. */
  private at = 0;
  private inQuotes = false;
  /** Whether the record so far has a quoted field (then its line breaks are counted). */
  private quoted = false;
  /** The physical line of the next record. */
  line = 1;
  /** The quoting walked so far is plain (see `CsvRecords.plain`). */
  plain = true;
  private readonly crlf: boolean;

  constructor(newline: Newline) {
    this.crlf = newline === '\r\n';
  }

  /** Characters held waiting for a record's end. */
  get pending(): number {
    return this.carry.length;
  }

  walk(more: string): CsvRecord[] {
    const text = this.carry ? this.carry + more : more;
    const n = text.length;
    const out: CsvRecord[] = [];
    let start = 0;
    let at = this.at;
    let inQuotes = this.inQuotes;
    let quoted = this.quoted;
    // The first quote and the first line break at or after `at` once looked for (n: none in the text):
    // in a plain file every quote outside a quoted field opens one, so a record with no quote before its
    // line break ends there, its commas never looked at.
    let quote = -1;
    let lineEnd = -1;
    for (;;) {
      if (inQuotes) {
        // The closing quote: one not doubled (a quote that ends the text waits for the next one, and so
        // does one that a carriage return and the end of the text follow).
        let q = text.indexOf('"', at);
        while (q !== -1 && q + 1 < n && text.charCodeAt(q + 1) === QUOTE) q = text.indexOf('"', q + 2);
        if (q === -1 || q + 1 >= n || (q + 2 >= n && text.charCodeAt(q + 1) === CR)) {
          at = q === -1 ? n : q;
          break;
        }
        at = q + 1;
        inQuotes = false;
        if (this.plain && !this.endsField(text, at)) this.plain = false;
      }
      if (quote < at) {
        quote = text.indexOf('"', at);
        if (quote === -1) quote = n;
      }
      if (lineEnd < at) {
        lineEnd = text.indexOf('\n', at);
        if (lineEnd === -1) lineEnd = n;
      }
      if (quote < lineEnd) {
        // Plain: a quote outside a quoted field opens one at the field's start.
        if (this.plain && quote !== start && text.charCodeAt(quote - 1) !== COMMA) this.plain = false;
        at = quote + 1;
        inQuotes = quoted = true;
        continue;
      }
      if (lineEnd === n) {
        at = n;
        break;
      }
      this.emit(text, start, lineEnd, quoted, out);
      start = at = lineEnd + 1;
      quoted = false;
    }
    this.carry = text.slice(start);
    this.at = at - start;
    this.inQuotes = inQuotes;
    this.quoted = quoted;
    return out;
  }

  /** The last record, when the text ends without a line break. */
  rest(): CsvRecord | undefined {
    // Plain: a quoted field still open at the end of the text closed on its last character.
    const { carry, at } = this;
    if (this.inQuotes && (at !== carry.length - 1 || carry.charCodeAt(at) !== QUOTE)) this.plain = false;
    const out: CsvRecord[] = [];
    if (this.carry) this.emit(this.carry, 0, this.carry.length, this.quoted, out, false);
    this.carry = '';
    return out[0];
  }

  /** Whether the character at `at`, after a closing quote, ends the field: a comma or the line ending. */
  private endsField(text: string, at: number): boolean {
    const next = text.charCodeAt(at);
    if (next === COMMA) return true;
    return this.crlf ? next === CR && text.charCodeAt(at + 1) === LF : next === LF;
  }

  private emit(text: string, start: number, end: number, quoted: boolean, out: CsvRecord[], broken = true) {
    const returned = text.charCodeAt(end - 1) === CR;
    // Plain: with CRLF line endings, no bare line feed outside a quoted field.
    if (broken && this.crlf && !returned) this.plain = false;
    const close = broken && this.crlf && returned ? end - 1 : end;
    const record = text.slice(start, close);
    const line = this.line;
    this.line += broken ? 1 : 0;
    if (quoted) for (let i = record.indexOf('\n'); i !== -1; i = record.indexOf('\n', i + 1)) this.line++;
    // A blank line (no field, or one empty one) is no record, as it is no row to the parser.
    if (record === '' || record === '""') return;
    out.push({ line, text: record });
  }
}

/** The value of field `index` (from 0) of a record of a plain file: '' when the record has fewer. */
export function fieldAt(text: string, index: number): string {
  let at = 0;
  for (let i = 0; ; i++) {
    const quoted = text.charCodeAt(at) === QUOTE;
    const close = quoted ? closingQuote(text, at + 1) : at;
    if (i === index) {
      if (!quoted) {
        const comma = text.indexOf(',', at);
        return comma === -1 ? text.slice(at) : text.slice(at, comma);
      }
      const value = text.slice(at + 1, close);
      return value.includes('"') ? value.replaceAll('""', '"') : value;
    }
    const comma = text.indexOf(',', close);
    if (comma === -1) return '';
    at = comma + 1;
  }
}

/** The quote that closes a quoted field whose text starts at `from` (its doubled quotes passed over). */
function closingQuote(text: string, from: number): number {
  let q = text.indexOf('"', from);
  while (q !== -1 && text.charCodeAt(q + 1) === QUOTE) q = text.indexOf('"', q + 2);
  return q === -1 ? text.length : q;
}

/** A record's values, parsed by the parser `readCsv` uses, with its options. */
export function parseRecord(text: string, newline: Newline): string[] {
  return Papa.parse<string[]>(text, parsedAs(newline)).data[0] ?? [];
}

/**
 * Several records' values (`parseRecord` of each), parsed in one call: the records of a plain file
 * joined by its line ending are its rows again, one each (a call costs the parser a few microseconds
 * besides the text).
 */
export function parseRecords(texts: readonly string[], newline: Newline): string[][] {
  if (texts.length <= 1) return texts.map((text) => parseRecord(text, newline));
  const rows = Papa.parse<string[]>(texts.join(newline), parsedAs(newline)).data;
  // Never short of a row where the records came from a plain file; else each is parsed alone.
  return rows.length === texts.length ? rows : texts.map((text) => parseRecord(text, newline));
}
