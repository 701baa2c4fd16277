/**
 * The shell commands of a Markdown page, as a reader would type them: every fenced block whose
 * language is `sh`, cut into commands (a command goes on over `\` line ends and open quotes). A comment
 * line `# → text` right after a command is the output that command shows: `…` stands for anything.
 * Blocks fenced otherwise (`console`, `text`, `ts`) are for reading only and are not collected.
 */

export interface Command {
  /** The page it is on, relative to the repository (`README.md`, `docs/lists.md`). */
  page: string;
  /** 1-based line of the page where the command starts. */
  line: number;
  /** The command exactly as written, continuation lines included. */
  text: string;
  /** The command without its trailing comments, whitespace collapsed: what a skip entry names. */
  key: string;
  /** Lines the page says the command prints (`# → …`). */
  expected: string[];
}

/** Every command of the page's `sh` blocks, in page order. */
export function shellCommands(page: string, markdown: string): Command[] {
  const lines = markdown.split('\n');
  const commands: Command[] = [];
  let inBlock = false;
  let fence = '';
  let current: { line: number; text: string[]; code: string[] } | undefined;
  let last: Command | undefined;

  lines.forEach((raw, index) => {
    const opening = /^(```+)\s*(\S*)\s*$/.exec(raw);
    if (!inBlock) {
      if (opening && opening[2] === 'sh') {
        inBlock = true;
        fence = opening[1]!;
        last = undefined;
      }
      return;
    }
    if (raw.trim() === fence) {
      if (current) throw new Error(`${page}:${current.line}: command not finished before the block ends`);
      inBlock = false;
      return;
    }
    if (!current) {
      const trimmed = raw.trim();
      if (trimmed === '') return;
      if (trimmed.startsWith('#')) {
        const output = /^#\s*→\s?(.*)$/.exec(trimmed);
        if (output) {
          if (!last) throw new Error(`${page}:${index + 1}: an output line without a command before it`);
          last.expected.push(output[1]!);
        } else {
          last = undefined;
        }
        return;
      }
      current = { line: index + 1, text: [], code: [] };
    }
    current.text.push(raw);
    const { code, open } = scan(current.text.join('\n'));
    if (!open) {
      const text = current.text.join('\n');
      last = {
        page,
        line: current.line,
        text,
        key: code.replace(/\\\n/g, ' ').replace(/\s+/g, ' ').trim(),
        expected: [],
      };
      commands.push(last);
      current = undefined;
    }
  });
  if (inBlock) throw new Error(`${page}: an sh block is not closed`);
  return commands;
}

/**
 * The command's code without comments, and whether it goes on to the next line (an open quote or a
 * line that ends in `\`). Enough of the shell's quoting for commands written for people to read.
 */
function scan(text: string): { code: string; open: boolean } {
  let code = '';
  let quote: '' | "'" | '"' = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote === "'") {
      code += c;
      if (c === "'") quote = '';
      continue;
    }
    if (c === '\\' && i + 1 < text.length) {
      code += c + text[i + 1];
      i++;
      continue;
    }
    if (quote === '"') {
      code += c;
      if (c === '"') quote = '';
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) {
      // A comment runs to the end of its line.
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
      continue;
    }
    code += c;
  }
  return { code, open: quote !== '' || /\\$/.test(text) };
}

/** Whether a line of output matches a `# → …` line: `…` stands for any text. */
export function outputMatches(expected: string, line: string): boolean {
  const pattern = expected
    .trim()
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`).test(line.trim());
}
