/**
 * Accept-Language (contract §4): `EN`, `NL`, `FR` in any case, or standard header syntax
 * (`fr-FR,fr;q=0.9,en;q=0.8`) where the best supported language wins. Missing or unsupported → `en`.
 * Never an error.
 */
export const LANGUAGES = ['en', 'nl', 'fr'] as const;
export type Language = (typeof LANGUAGES)[number];

export function parseAcceptLanguage(header: string | undefined): Language {
  if (!header) return 'en';
  let best: { language: Language; q: number } | null = null;
  for (const part of header.split(',')) {
    const [tag = '', ...params] = part.trim().split(';');
    const primary = tag.trim().toLowerCase().split('-')[0] ?? '';
    if (!isLanguage(primary)) continue;
    const q = quality(params);
    // Strictly greater: among equal weights the one listed first wins.
    if (q > 0 && (!best || q > best.q)) best = { language: primary, q };
  }
  return best?.language ?? 'en';
}

function isLanguage(value: string): value is Language {
  return (LANGUAGES as readonly string[]).includes(value);
}

function quality(params: string[]): number {
  for (const param of params) {
    const match = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(param);
    if (match) {
      const q = Number(match[1]);
      return Number.isFinite(q) ? Math.min(q, 1) : 0;
    }
  }
  return 1;
}
